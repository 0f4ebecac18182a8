/**
 * A relation field's input: the chosen records by their presentable labels (remove each), and a
 * picker modal with server-side search and paging over the related collection (never loaded
 * whole), respecting maxSelect.
 */
import type { CollectionField, CollectionModel, RecordModel } from 'pocketbase'
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, pb } from '../api'
import { findCollection } from '../collections'
import { Button, Modal } from '../components/ui'
import { asList, buildFilter, recordLabel } from './query'

const PICKER_PAGE = 30

export function RelationInput(props: {
  field: CollectionField
  value: unknown
  onChange: (value: unknown) => void
  error?: string | undefined
  readOnly: boolean
}) {
  const f = props.field
  const related = findCollection(String(f.collectionId ?? ''))
  const max = Number(f.maxSelect ?? 1)
  const ids = asList(props.value)
  const [labels, setLabels] = useState<Record<string, string>>({})
  const [picking, setPicking] = useState(false)

  // Labels of chosen records not known yet (one request for all of them).
  const missing = ids.filter((id) => !(id in labels))
  useEffect(() => {
    if (!related || missing.length === 0) return
    const filter = missing.map((id) => pb.filter('id = {:id}', { id })).join(' || ')
    pb.collection(related.name)
      .getList(1, missing.length, { filter, skipTotal: true })
      .then(
        (res) => {
          const next = { ...labels }
          for (const id of missing) next[id] = id
          for (const r of res.items) next[r.id] = recordLabel(r, related)
          setLabels(next)
        },
        () => undefined,
      )
  }, [missing.join(',')])

  const set = (next: string[]) => props.onChange(max > 1 ? next : (next[0] ?? ''))
  return (
    <fieldset class={`field relation-field${props.error ? ' has-error' : ''}`}>
      <legend>
        {f.name}
        {f.required ? ' *' : ''}{' '}
        <span class="muted">
          → {related?.name ?? 'unknown collection'}
          {max > 1 ? ` (up to ${max})` : ''}
        </span>
      </legend>
      <ul class="chip-list">
        {ids.map((id) => (
          <li key={id} class="chip">
            {labels[id] ?? id}
            {!props.readOnly && (
              <button
                type="button"
                class="chip-remove"
                aria-label={`Remove ${labels[id] ?? id}`}
                onClick={() => set(ids.filter((x) => x !== id))}
              >
                ×
              </button>
            )}
          </li>
        ))}
        {ids.length === 0 && <li class="muted">None</li>}
      </ul>
      {!props.readOnly && related && (
        <div>
          <Button onClick={() => setPicking(true)}>Open records picker</Button>
        </div>
      )}
      {props.error && <div class="error-text">{props.error}</div>}
      {picking && related && (
        <RelationPicker
          collection={related}
          max={max}
          initial={ids}
          onClose={() => setPicking(false)}
          onDone={(chosen, known) => {
            setLabels({ ...labels, ...known })
            set(chosen)
            setPicking(false)
          }}
        />
      )}
    </fieldset>
  )
}

/** The picker: search (on the server), pages of 30 with "Load more", choose up to `max`. */
function RelationPicker(props: {
  collection: CollectionModel
  max: number
  initial: string[]
  onClose: () => void
  onDone: (ids: string[], labels: Record<string, string>) => void
}) {
  const c = props.collection
  const [term, setTerm] = useState('')
  const [applied, setApplied] = useState('')
  const [items, setItems] = useState<RecordModel[]>([])
  const [page, setPage] = useState(1)
  const [more, setMore] = useState(false)
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState('')
  const [chosen, setChosen] = useState<string[]>(props.initial)
  const [labels, setLabels] = useState<Record<string, string>>({})

  useEffect(() => {
    let live = true
    setLoading(true)
    pb.collection(c.name)
      .getList(page, PICKER_PAGE, {
        filter: buildFilter(applied, c),
        sort: c.type === 'view' ? '' : '-@rowid',
        skipTotal: true,
      })
      .then(
        (res) => {
          if (!live) return
          setItems((prev) => (page === 1 ? res.items : [...prev, ...res.items]))
          setMore(res.items.length === PICKER_PAGE)
          setError('')
          const next: Record<string, string> = {}
          for (const r of res.items) next[r.id] = recordLabel(r, c)
          setLabels((l) => ({ ...l, ...next }))
        },
        (err: unknown) => live && setError(errorMessage(err)),
      )
      .finally(() => live && setLoading(false))
    return () => {
      live = false
    }
  }, [applied, page])

  const toggle = (id: string) => {
    if (chosen.includes(id)) setChosen(chosen.filter((x) => x !== id))
    else if (props.max <= 1) setChosen([id])
    else if (chosen.length < props.max) setChosen([...chosen, id])
  }
  const full = props.max > 1 && chosen.length >= props.max
  return (
    <Modal
      title={`Choose ${c.name} records`}
      onClose={props.onClose}
      footer={
        <>
          <span class="muted grow">
            Selected {chosen.length}
            {props.max > 1 ? ` of max ${props.max}` : ''}
          </span>
          <Button onClick={props.onClose}>Cancel</Button>
          <Button kind="primary" onClick={() => props.onDone(chosen, labels)}>
            Set selection
          </Button>
        </>
      }
    >
      <form
        class="row"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          setPage(1)
          setApplied(term)
        }}
      >
        <input
          class="grow"
          type="search"
          aria-label={`Search ${c.name}`}
          placeholder="Search term or filter"
          value={term}
          onInput={(e) => setTerm(e.currentTarget.value)}
        />
        <Button type="submit">Search</Button>
      </form>
      {error && <p class="error-text">{error}</p>}
      <ul class="picker-list">
        {items.map((r) => {
          const on = chosen.includes(r.id)
          return (
            <li key={r.id}>
              <label class={on ? 'picked' : undefined}>
                <input
                  type={props.max > 1 ? 'checkbox' : 'radio'}
                  name="relation-pick"
                  checked={on}
                  disabled={!on && full}
                  onChange={() => toggle(r.id)}
                />
                <span>{recordLabel(r, c)}</span> <span class="muted mono">{r.id}</span>
              </label>
            </li>
          )
        })}
        {!loading && items.length === 0 && <li class="muted">No records found.</li>}
      </ul>
      {more && (
        <Button busy={loading} onClick={() => setPage(page + 1)}>
          Load more
        </Button>
      )}
    </Modal>
  )
}
