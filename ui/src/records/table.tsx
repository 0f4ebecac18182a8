/**
 * The records of one collection: a header (refresh, columns, new record), the search bar, the
 * table (sortable headers, bulk selection with shift-click ranges, cells by field type), paging
 * with "Load more", the total on request, bulk delete, live updates, and the record editor
 * (`record=ID` in the URL).
 */
import type { CollectionModel } from 'pocketbase'
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, pb } from '../api'
import { Button, Confirm } from '../components/ui'
import { navigate, type Route } from '../router'
import { toast } from '../toasts'
import { Cell } from './cells'
import { ColumnsMenu } from './columns-menu'
import { RecordEditor } from './editor'
import { FilterInput } from './filter-input'
import { fileToken } from './file-token'
import { buildFilter, columnFields, defaultSort, hiddenColumns, nextSort } from './query'
import { useRecords } from './use-records'
import './records.css'

/** The records page of `collection`; the route's query holds filter, sort and record. */
export function RecordsView(props: {
  collection: CollectionModel
  route: Route
  onEditCollection?: () => void
}) {
  const c = props.collection
  const q = props.route.query
  const filterText = q.get('filter') ?? ''
  const sort = q.get('sort') ?? defaultSort(c)
  const recordId = q.get('record') ?? ''
  const [draft, setDraft] = useState(filterText)
  const [hidden, setHidden] = useState(() => hiddenColumns(c))
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [lastClicked, setLastClicked] = useState<number | null>(null)
  const [confirmDelete, setConfirmDelete] = useState(false)
  const [deleting, setDeleting] = useState(false)
  const [token, setToken] = useState('')
  const filter = buildFilter(filterText, c)
  const list = useRecords(c, filter, sort)
  const isView = c.type === 'view'

  useEffect(() => {
    setDraft(filterText)
  }, [filterText, c.id])
  useEffect(() => {
    setHidden(hiddenColumns(c))
    setSelected(new Set())
    setLastClicked(null)
    if (!c.fields.some((f) => f.type === 'file')) return
    // File URLs carry a short-lived file token (180 s): renewed while the page is open.
    const renew = () => void fileToken().then(setToken, () => undefined)
    renew()
    const timer = window.setInterval(renew, 60_000)
    return () => window.clearInterval(timer)
  }, [c.id])

  const go = (changes: Record<string, string | undefined>, replace = true) => {
    const next: Record<string, string | undefined> = {
      collection: c.name,
      filter: filterText || undefined,
      sort: q.get('sort') ?? undefined,
      record: recordId || undefined,
      ...changes,
    }
    navigate('collections', next, replace)
  }

  const columns = columnFields(c).filter((f) => !hidden.has(f.name))
  const ids = list.items.map((r) => r.id)
  const allSelected = ids.length > 0 && ids.every((id) => selected.has(id))

  const toggle = (index: number, shift: boolean) => {
    const id = ids[index]
    if (!id) return
    const next = new Set(selected)
    const on = !selected.has(id)
    if (shift && lastClicked !== null) {
      const [a, b] = lastClicked < index ? [lastClicked, index] : [index, lastClicked]
      for (const x of ids.slice(a, b + 1)) {
        if (on) next.add(x)
        else next.delete(x)
      }
    } else if (on) next.add(id)
    else next.delete(id)
    setSelected(next)
    setLastClicked(index)
  }

  const bulkDelete = async () => {
    setDeleting(true)
    const chosen = [...selected]
    const done: string[] = []
    const failed: string[] = []
    for (let i = 0; i < chosen.length; i += 100) {
      const batch = chosen.slice(i, i + 100)
      const results = await Promise.allSettled(batch.map((id) => pb.collection(c.name).delete(id)))
      results.forEach((r, j) => (r.status === 'fulfilled' ? done : failed).push(batch[j]!))
      if (failed.length === 0) continue
      const first = results.find((r) => r.status === 'rejected')
      toast('error', `Some records could not be deleted: ${errorMessage(first?.reason)}`)
      break
    }
    list.drop(done)
    setSelected(new Set(failed))
    setDeleting(false)
    setConfirmDelete(false)
    if (done.length)
      toast('success', `Deleted ${done.length} record${done.length === 1 ? '' : 's'}.`)
  }

  return (
    <section class="records" aria-labelledby="records-title">
      <div class="page-header">
        <h1 id="records-title">
          <span class="muted">Collections / </span>
          {c.name}
        </h1>
        <span class={`badge type-${c.type}`}>{c.type}</span>
        {props.onEditCollection && (
          <Button
            kind="link"
            aria-label={`Edit collection ${c.name}`}
            onClick={props.onEditCollection}
          >
            ⚙
          </Button>
        )}
        <div class="grow" />
        <Button onClick={list.reload}>Refresh</Button>
        <ColumnsMenu collection={c} hidden={hidden} onChange={setHidden} />
        {!isView && (
          <Button kind="primary" onClick={() => go({ record: 'new' }, false)}>
            New record
          </Button>
        )}
      </div>

      <form
        class="filter-bar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          go({ filter: draft.trim() || undefined })
        }}
      >
        <FilterInput
          collection={c}
          value={draft}
          onInput={setDraft}
          onSubmit={() => go({ filter: draft.trim() || undefined })}
        />
        <Button type="submit">Search</Button>
        {filterText && (
          <Button kind="link" onClick={() => go({ filter: undefined })}>
            Clear
          </Button>
        )}
      </form>

      {selected.size > 0 && (
        <div class="bulk-bar" role="region" aria-label="Selected records">
          <span>
            Selected <strong>{selected.size}</strong>
          </span>
          <Button kind="link" onClick={() => setSelected(new Set())}>
            Reset
          </Button>
          {!isView && (
            <Button kind="danger" onClick={() => setConfirmDelete(true)}>
              Delete selected
            </Button>
          )}
        </div>
      )}

      {list.error && (
        <p class="error-text" role="alert">
          {list.error}
        </p>
      )}

      <div class="table-wrap">
        <table class="records-table">
          <thead>
            <tr>
              <th class="col-select">
                <input
                  type="checkbox"
                  aria-label="Select all loaded records"
                  checked={allSelected}
                  onChange={() => setSelected(allSelected ? new Set() : new Set(ids))}
                />
              </th>
              {columns.map((f) => {
                const dir =
                  sort === f.name ? 'ascending' : sort === `-${f.name}` ? 'descending' : undefined
                return (
                  <th key={f.name} aria-sort={dir ?? 'none'}>
                    <button
                      type="button"
                      class="sort-button"
                      onClick={() => go({ sort: nextSort(sort, f.name) })}
                    >
                      {f.name}
                      <span class="sort-mark" aria-hidden="true">
                        {dir === 'ascending' ? ' ▲' : dir === 'descending' ? ' ▼' : ''}
                      </span>
                    </button>
                  </th>
                )
              })}
            </tr>
          </thead>
          <tbody>
            {list.items.map((r, i) => (
              <tr
                key={r.id}
                class={selected.has(r.id) ? 'selected' : undefined}
                onClick={() => go({ record: r.id }, false)}
              >
                <td class="col-select" onClick={(e) => e.stopPropagation()}>
                  <input
                    type="checkbox"
                    aria-label={`Select record ${r.id}`}
                    checked={selected.has(r.id)}
                    onClick={(e) => {
                      e.preventDefault()
                      toggle(i, e.shiftKey)
                    }}
                  />
                </td>
                {columns.map((f) =>
                  f.name === 'id' ? (
                    <td key={f.name}>
                      <a
                        href={`#/collections?collection=${encodeURIComponent(c.name)}&record=${encodeURIComponent(r.id)}`}
                        onClick={(e) => {
                          e.preventDefault()
                          e.stopPropagation()
                          go({ record: r.id }, false)
                        }}
                      >
                        {r.id}
                      </a>
                    </td>
                  ) : (
                    <td key={f.name}>
                      <Cell record={r} field={f} fileToken={token} />
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
        {!list.loading && list.items.length === 0 && (
          <div class="empty">
            <p>No records found.</p>
            {filterText ? (
              <Button onClick={() => go({ filter: undefined })}>Clear search</Button>
            ) : (
              !isView && <Button onClick={() => go({ record: 'new' }, false)}>New record</Button>
            )}
          </div>
        )}
      </div>

      <div class="records-footer">
        {list.hasMore && (
          <Button busy={list.loading} onClick={list.loadMore}>
            Load more
          </Button>
        )}
        {list.loading && !list.hasMore && <span class="muted">Loading…</span>}
        <div class="grow" />
        <span class="muted">Shown: {list.items.length}</span>
        {list.total === null ? (
          <Button kind="link" busy={list.counting} onClick={list.count}>
            Count
          </Button>
        ) : (
          <span>Total: {list.total}</span>
        )}
      </div>

      {confirmDelete && (
        <Confirm
          title="Delete records"
          confirmLabel={`Delete ${selected.size}`}
          danger
          busy={deleting}
          onConfirm={() => void bulkDelete()}
          onCancel={() => setConfirmDelete(false)}
        >
          <p>
            Delete the {selected.size} selected record{selected.size === 1 ? '' : 's'}? This cannot
            be undone.
          </p>
        </Confirm>
      )}

      {recordId && (
        <RecordEditor
          key={`${c.id}/${recordId}`}
          collection={c}
          recordId={recordId === 'new' ? '' : recordId}
          onClose={() => go({ record: undefined })}
          onSaved={(r) => {
            list.put(r)
            go({ record: undefined })
          }}
          onDeleted={(id) => {
            list.drop([id])
            go({ record: undefined })
          }}
        />
      )}
    </section>
  )
}
