/**
 * The `editor` field's rich-text input: Tiptap (`@tiptap/core` + StarterKit), loaded by dynamic
 * import the first time one is shown, writing HTML. A small toolbar (bold, italic, heading,
 * lists, code block, undo/redo); a plain textarea stands in while it loads or if it fails.
 */
import type { Editor } from '@tiptap/core'
import { useEffect, useId, useRef, useState } from 'preact/hooks'

const TOOLS: {
  label: string
  run: (e: Editor) => void
  active?: [string, Record<string, unknown>?]
}[] = [
  { label: 'Bold', run: (e) => e.chain().focus().toggleBold().run(), active: ['bold'] },
  { label: 'Italic', run: (e) => e.chain().focus().toggleItalic().run(), active: ['italic'] },
  {
    label: 'Heading',
    run: (e) => e.chain().focus().toggleHeading({ level: 2 }).run(),
    active: ['heading', { level: 2 }],
  },
  {
    label: 'Bullet list',
    run: (e) => e.chain().focus().toggleBulletList().run(),
    active: ['bulletList'],
  },
  {
    label: 'Numbered list',
    run: (e) => e.chain().focus().toggleOrderedList().run(),
    active: ['orderedList'],
  },
  {
    label: 'Code block',
    run: (e) => e.chain().focus().toggleCodeBlock().run(),
    active: ['codeBlock'],
  },
  { label: 'Undo', run: (e) => e.chain().focus().undo().run() },
  { label: 'Redo', run: (e) => e.chain().focus().redo().run() },
]

export function RichText(props: {
  label: string
  value: string
  onChange: (html: string) => void
  error?: string | undefined
  readOnly: boolean
}) {
  const id = useId()
  const host = useRef<HTMLDivElement>(null)
  const [editor, setEditor] = useState<Editor | null>(null)
  const [failed, setFailed] = useState(false)
  const [, setTick] = useState(0)
  const onChange = useRef(props.onChange)
  onChange.current = props.onChange

  useEffect(() => {
    let ed: Editor | null = null
    let live = true
    Promise.all([import('@tiptap/core'), import('@tiptap/starter-kit')]).then(
      ([core, kit]) => {
        if (!live || !host.current) return
        ed = new core.Editor({
          element: host.current,
          extensions: [kit.StarterKit],
          content: props.value,
          editable: !props.readOnly,
          editorProps: {
            attributes: {
              'aria-labelledby': id,
              role: 'textbox',
              'aria-multiline': 'true',
              class: 'rich-text-content',
            },
          },
          onUpdate: ({ editor: e }) => onChange.current(e.isEmpty ? '' : e.getHTML()),
          onTransaction: () => setTick((t) => t + 1),
        })
        setEditor(ed)
      },
      () => live && setFailed(true),
    )
    return () => {
      live = false
      ed?.destroy()
    }
  }, [])

  return (
    <div class={`field rich-text${props.error ? ' has-error' : ''}`}>
      <span class="field-label" id={id}>
        {props.label}
      </span>
      {editor && !props.readOnly && (
        <div class="rich-toolbar" role="toolbar" aria-label={`${props.label} formatting`}>
          {TOOLS.map((t) => (
            <button
              key={t.label}
              type="button"
              class="btn btn-secondary"
              aria-pressed={t.active ? editor.isActive(t.active[0], t.active[1]) : undefined}
              onClick={() => t.run(editor)}
            >
              {t.label}
            </button>
          ))}
        </div>
      )}
      {failed ? (
        <textarea
          aria-labelledby={id}
          rows={6}
          value={props.value}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      ) : (
        <>
          {!editor && <span class="muted">Loading the editor…</span>}
          <div class="rich-host" ref={host} />
        </>
      )}
      {props.error && <div class="error-text">{props.error}</div>}
    </div>
  )
}
