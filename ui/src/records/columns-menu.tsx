/** The "Columns" menu: a checkbox per field; the choice is kept per collection in localStorage. */
import type { CollectionModel } from 'pocketbase'
import { useEffect, useRef, useState } from 'preact/hooks'
import { columnFields, saveHiddenColumns } from './query'

export function ColumnsMenu(props: {
  collection: CollectionModel
  hidden: Set<string>
  onChange: (hidden: Set<string>) => void
}) {
  const [open, setOpen] = useState(false)
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!open) return
    const onDown = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false)
    }
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false)
    }
    document.addEventListener('mousedown', onDown)
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('mousedown', onDown)
      document.removeEventListener('keydown', onKey)
    }
  }, [open])
  const set = (name: string, shown: boolean) => {
    const next = new Set(props.hidden)
    if (shown) next.delete(name)
    else next.add(name)
    saveHiddenColumns(props.collection, next)
    props.onChange(next)
  }
  return (
    <div class="menu" ref={ref}>
      <button
        type="button"
        class="btn btn-secondary"
        aria-expanded={open}
        aria-haspopup="true"
        onClick={() => setOpen(!open)}
      >
        Columns
      </button>
      {open && (
        <div class="menu-panel" role="group" aria-label="Shown columns">
          {columnFields(props.collection).map((f) => (
            <label key={f.name} class="menu-item">
              <input
                type="checkbox"
                checked={!props.hidden.has(f.name)}
                onChange={(e) => set(f.name, e.currentTarget.checked)}
              />
              {f.name} <span class="muted">{f.type}</span>
            </label>
          ))}
        </div>
      )}
    </div>
  )
}
