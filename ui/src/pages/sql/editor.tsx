/**
 * The SQL editor: CodeMirror 6 with `@codemirror/lang-sql` (table names completed), loaded on
 * first use. Ctrl/Cmd+Enter runs the statement. Tab is left to the page (moves focus).
 */
import { useEffect, useRef } from 'preact/hooks'
import type { EditorView } from '@codemirror/view'

export interface SqlEditorApi {
  set(text: string): void
}

export function SqlEditor(props: {
  value: string
  onChange: (text: string) => void
  onRun: () => void
  tables: Record<string, string[]>
  apiRef: { current: SqlEditorApi | null }
}) {
  const box = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView | null>(null)
  const latest = useRef(props)
  latest.current = props
  useEffect(() => {
    let live = true
    void Promise.all([
      import('@codemirror/view'),
      import('@codemirror/state'),
      import('@codemirror/commands'),
      import('@codemirror/language'),
      import('@codemirror/lang-sql'),
      import('@codemirror/autocomplete'),
    ]).then(([v, s, cmd, lang, sqlLang, ac]) => {
      if (!live || !box.current) return
      const run = () => {
        latest.current.onRun()
        return true
      }
      view.current = new v.EditorView({
        parent: box.current,
        state: s.EditorState.create({
          doc: props.value,
          extensions: [
            v.lineNumbers(),
            v.highlightActiveLine(),
            v.drawSelection(),
            cmd.history(),
            lang.bracketMatching(),
            ac.closeBrackets(),
            ac.autocompletion(),
            lang.syntaxHighlighting(lang.defaultHighlightStyle, { fallback: true }),
            v.keymap.of([
              { key: 'Mod-Enter', run, preventDefault: true },
              ...ac.closeBracketsKeymap,
              ...ac.completionKeymap,
              ...cmd.defaultKeymap,
              ...cmd.historyKeymap,
            ]),
            sqlLang.sql({ dialect: sqlLang.SQLite, schema: props.tables, upperCaseKeywords: true }),
            v.EditorView.contentAttributes.of({ 'aria-label': 'SQL statement' }),
            v.EditorView.updateListener.of((u) => {
              if (u.docChanged) latest.current.onChange(u.state.doc.toString())
            }),
            v.EditorView.theme({
              '&': { backgroundColor: 'var(--surface)', color: 'var(--text)', minHeight: '140px' },
              '.cm-content': { caretColor: 'var(--text)' },
              '.cm-gutters': {
                backgroundColor: 'var(--surface-2)',
                color: 'var(--muted)',
                border: 'none',
              },
              '.cm-activeLine': {
                backgroundColor: 'color-mix(in srgb, var(--accent) 7%, transparent)',
              },
              '.cm-activeLineGutter': { backgroundColor: 'transparent' },
              '&.cm-focused': { outline: '3px solid var(--focus)' },
            }),
          ],
        }),
      })
      props.apiRef.current = {
        set(text) {
          const ed = view.current
          if (!ed) return
          ed.dispatch({ changes: { from: 0, to: ed.state.doc.length, insert: text } })
          ed.focus()
        },
      }
    })
    return () => {
      live = false
      view.current?.destroy()
      view.current = null
      props.apiRef.current = null
    }
  }, [])
  return <div class="sql-editor mono" ref={box} />
}
