/**
 * A CodeMirror 6 editor for rule and filter expressions, loaded on first use (the `@codemirror/*`
 * modules are a lazy chunk). Completion comes from `complete()`; Enter accepts a suggestion,
 * Tab leaves the editor (keyboard users move on), Esc closes the suggestions. With `singleLine`
 * a newline is never inserted and Enter (no suggestion open) calls `onSubmit`.
 */
import { useEffect, useRef } from 'preact/hooks'
import type { EditorView } from '@codemirror/view'
import type { CollectionModel } from 'pocketbase'
import { collections } from '../collections'
import { complete } from './complete'
import './rules.css'

export interface ExpressionEditorProps {
  value: string
  onChange: (text: string) => void
  collection: CollectionModel | null
  mode: 'rule' | 'filter'
  /** The accessible name of the editor. */
  label: string
  /** The id of an element describing the editor (its error). */
  describedBy?: string | undefined
  invalid?: boolean
  placeholder?: string
  singleLine?: boolean
  onSubmit?: (text: string) => void
}

/** A collection with no fields, for completion before one is chosen. */
const EMPTY = { id: '', name: '', type: 'base', fields: [] } as unknown as CollectionModel

/** The rule/filter editor; the text is kept in step with `value` when it changes outside. */
export function ExpressionEditor(props: ExpressionEditorProps) {
  const box = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView | null>(null)
  const latest = useRef(props)
  latest.current = props
  // Texts this editor reported: a `value` among them is an echo (maybe a stale one, typing
  // being faster than rendering) and must not be written back over newer text.
  const emitted = useRef(new Set<string>())

  useEffect(() => {
    let live = true
    void Promise.all([
      import('@codemirror/view'),
      import('@codemirror/state'),
      import('@codemirror/commands'),
      import('@codemirror/autocomplete'),
    ]).then(([v, s, cmd, ac]) => {
      if (!live || !box.current) return
      const source = (cx: import('@codemirror/autocomplete').CompletionContext) => {
        const p = latest.current
        const r = complete(cx.state.doc.toString(), cx.pos, {
          collection: p.collection ?? EMPTY,
          collections: collections.value ?? [],
          mode: p.mode,
        })
        if (r.options.length === 0) return null
        const before = cx.state.sliceDoc(Math.max(0, r.from - 1), r.from)
        // An empty word pops up only after `.` or `:`, or on Ctrl+Space.
        if (r.from === r.to && !cx.explicit && before !== '.' && before !== ':') return null
        return {
          from: r.from,
          to: r.to,
          options: r.options.map((o) => ({ label: o.label, detail: o.detail })),
          validFor: /^[\w@]*$/,
        }
      }
      const submit = () => {
        latest.current.onSubmit?.(view.current?.state.doc.toString() ?? '')
        return true
      }
      const single = props.singleLine
        ? [
            s.EditorState.transactionFilter.of((tr) => (tr.newDoc.lines > 1 ? [] : tr)),
            v.keymap.of([{ key: 'Enter', run: submit }]),
          ]
        : []
      view.current = new v.EditorView({
        parent: box.current,
        state: s.EditorState.create({
          doc: props.value,
          extensions: [
            ...single,
            cmd.history(),
            v.drawSelection(),
            ac.closeBrackets(),
            ac.autocompletion({ override: [source], icons: false, interactionDelay: 0 }),
            v.placeholder(props.placeholder ?? ''),
            v.EditorView.lineWrapping,
            v.keymap.of([...ac.closeBracketsKeymap, ...cmd.defaultKeymap, ...cmd.historyKeymap]),
            v.EditorView.contentAttributes.of({
              'aria-label': props.label,
              'aria-multiline': props.singleLine ? 'false' : 'true',
            }),
            v.EditorView.updateListener.of((u) => {
              if (!u.docChanged) return
              const text = u.state.doc.toString()
              if (emitted.current.size > 500) emitted.current.clear()
              emitted.current.add(text)
              latest.current.onChange(text)
            }),
          ],
        }),
      })
    })
    return () => {
      live = false
      view.current?.destroy()
      view.current = null
    }
  }, [])

  // A value changed from outside (a reset, a preset) replaces the text.
  useEffect(() => {
    const ed = view.current
    if (ed && !emitted.current.has(props.value) && ed.state.doc.toString() !== props.value) {
      emitted.current.clear()
      ed.dispatch({ changes: { from: 0, to: ed.state.doc.length, insert: props.value } })
    }
  }, [props.value])

  // The description and validity go on the editable element itself.
  useEffect(() => {
    const content = box.current?.querySelector('.cm-content')
    if (!content) return
    if (props.describedBy) content.setAttribute('aria-describedby', props.describedBy)
    else content.removeAttribute('aria-describedby')
    if (props.invalid) content.setAttribute('aria-invalid', 'true')
    else content.removeAttribute('aria-invalid')
  })

  return (
    <div
      class={`expr-editor mono${props.singleLine ? ' single' : ''}${props.invalid ? ' invalid' : ''}`}
      ref={box}
      // Esc that closed the suggestions stops here (a modal around must not close too).
      onKeyDown={(e) => {
        if (e.key === 'Escape' && e.defaultPrevented) e.stopPropagation()
      }}
    />
  )
}
