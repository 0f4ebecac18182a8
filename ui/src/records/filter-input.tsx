/**
 * The records page's search bar: a text input with filter completion (field names, modifiers,
 * macros, operators: `rules/complete.ts`) in an ARIA combobox. Arrow keys move in the list, Enter
 * or Tab takes a suggestion, Esc closes it; Enter without a list open submits the search.
 */
import type { CollectionModel } from 'pocketbase'
import { useId, useRef, useState } from 'preact/hooks'
import { collections } from '../collections'
import { complete, type CompletionResult } from '../rules/complete'

export function FilterInput(props: {
  collection: CollectionModel
  value: string
  onInput: (value: string) => void
  onSubmit: () => void
}) {
  const id = useId()
  const ref = useRef<HTMLInputElement>(null)
  const [result, setResult] = useState<CompletionResult | null>(null)
  const [active, setActive] = useState(-1)
  const open = Boolean(result && result.options.length > 0)

  const suggest = (text: string, cursor: number) => {
    const r = complete(text, cursor, {
      collection: props.collection,
      collections: collections.value ?? [props.collection],
      mode: 'filter',
    })
    setResult(r.options.length ? { ...r, options: r.options.slice(0, 12) } : null)
    setActive(-1)
  }

  const take = (i: number) => {
    const r = result
    const option = r?.options[i]
    if (!r || !option) return
    const text = props.value.slice(0, r.from) + option.label + props.value.slice(r.to)
    props.onInput(text)
    setResult(null)
    const at = r.from + option.label.length
    window.requestAnimationFrame(() => ref.current?.setSelectionRange(at, at))
  }

  const onKeyDown = (e: KeyboardEvent) => {
    if (open && result) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault()
        const n = result.options.length
        setActive(
          (a) =>
            (Math.max(a, e.key === 'ArrowDown' ? -1 : 0) + (e.key === 'ArrowDown' ? 1 : n - 1)) % n,
        )
        return
      }
      // Tab takes the highlighted (or first) suggestion; Enter only one chosen with the arrows.
      if (e.key === 'Tab' || (e.key === 'Enter' && active >= 0)) {
        e.preventDefault()
        take(Math.max(0, active))
        return
      }
      if (e.key === 'Escape') {
        e.preventDefault()
        e.stopPropagation()
        setResult(null)
        return
      }
    }
    if (e.key === 'Enter') {
      e.preventDefault()
      setResult(null)
      props.onSubmit()
    }
  }

  return (
    <div class="filter-input">
      <label for={id} class="sr-only">
        Search or filter records
      </label>
      <input
        id={id}
        ref={ref}
        type="search"
        role="combobox"
        list={undefined}
        autoComplete="off"
        spellcheck={false}
        aria-expanded={open}
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        aria-activedescendant={open && active >= 0 ? `${id}-opt-${active}` : undefined}
        placeholder='Search term or filter, e.g. title ~ "news" && created > @todayStart'
        value={props.value}
        onInput={(e) => {
          const el = e.currentTarget
          props.onInput(el.value)
          suggest(el.value, el.selectionStart ?? el.value.length)
        }}
        onKeyDown={onKeyDown}
        onBlur={() => window.setTimeout(() => setResult(null), 150)}
      />
      {open && result && (
        <ul class="completions" id={`${id}-list`} role="listbox" aria-label="Suggestions">
          {result.options.map((o, i) => (
            <li
              key={o.label}
              id={`${id}-opt-${i}`}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                e.preventDefault()
                take(i)
              }}
            >
              <span>{o.label}</span>
              {o.detail && <span class="muted">{o.detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
