/**
 * The records list's data: pages of 40 with `skipTotal` and "Load more", the total only when
 * asked (a separate request), and live updates from a realtime subscription to the collection
 * (records created, changed or deleted elsewhere appear, update or vanish).
 */
import type { CollectionModel, RecordModel } from 'pocketbase'
import { useEffect, useRef, useState } from 'preact/hooks'
import { errorMessage, pb } from '../api'

/** Rows per page. */
export const PER_PAGE = 40

/** The relation fields expanded on the first level (for their presentable labels). */
export function expandOf(collection: CollectionModel): string {
  return collection.fields
    .filter((f) => f.type === 'relation')
    .map((f) => f.name)
    .join(',')
}

/**
 * The `fields` of list requests: everything, but rich-text (`editor`) fields as a 200-character
 * plain-text excerpt, so a page of long documents stays small (undefined when there are none).
 */
export function listFields(collection: CollectionModel): string | undefined {
  const editors = collection.fields.filter((f) => f.type === 'editor').map((f) => f.name)
  if (!editors.length) return undefined
  return ['*', ...editors.map((n) => `${n}:excerpt(200,true)`)].join(',')
}

export interface RecordsState {
  items: RecordModel[]
  loading: boolean
  error: string
  hasMore: boolean
  /** The total, once counted (null until the user asks). */
  total: number | null
  counting: boolean
  loadMore: () => void
  count: () => void
  reload: () => void
  /** Takes records out of the list (after a delete). */
  drop: (ids: string[]) => void
  /** Puts a saved record in the list (replacing it, or first when new). */
  put: (record: RecordModel) => void
}

/** Loads and keeps the records of `collection` matching `filter`, in `sort` order. */
export function useRecords(
  collection: CollectionModel,
  filter: string,
  sort: string,
): RecordsState {
  const [items, setItems] = useState<RecordModel[]>([])
  const [page, setPage] = useState(1)
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState('')
  const [hasMore, setHasMore] = useState(false)
  const [total, setTotal] = useState<number | null>(null)
  const [counting, setCounting] = useState(false)
  const [generation, setGeneration] = useState(0)
  const gen = useRef(0)
  const current = useRef({ filter, name: collection.name })
  current.current = { filter, name: collection.name }
  const expand = expandOf(collection)
  const fields = listFields(collection)

  const load = (p: number, g: number) => {
    setLoading(true)
    pb.collection(collection.name)
      .getList(p, PER_PAGE, { filter, sort, expand, fields, skipTotal: true })
      .then(
        (res) => {
          if (gen.current !== g) return
          setItems((prev) => {
            if (p === 1) return res.items
            const seen = new Set(prev.map((r) => r.id))
            return [...prev, ...res.items.filter((r) => !seen.has(r.id))]
          })
          setHasMore(res.items.length === PER_PAGE)
          setError('')
        },
        (err: unknown) => gen.current === g && setError(errorMessage(err)),
      )
      .finally(() => gen.current === g && setLoading(false))
  }

  // A new collection, filter or sort starts again from page 1.
  useEffect(() => {
    const g = ++gen.current
    setItems([])
    setPage(1)
    setTotal(null)
    load(1, g)
  }, [collection.id, filter, sort, generation])

  // Live updates.
  useEffect(() => {
    let unsubscribe: (() => Promise<void>) | null = null
    let live = true
    const name = collection.name
    pb.collection(name)
      .subscribe('*', (e) => {
        if (!live) return
        if (e.action === 'delete') {
          setItems((prev) => prev.filter((r) => r.id !== e.record.id))
          setTotal((t) => (t === null ? t : Math.max(0, t - 1)))
          return
        }
        // Fetch it again with the list's filter and expand: it shows only when it matches.
        const f = current.current.filter
        const byId = pb.filter('id = {:id}', { id: e.record.id })
        pb.collection(name)
          .getList(1, 1, {
            filter: f ? `(${byId}) && (${f})` : byId,
            expand,
            fields,
            skipTotal: true,
          })
          .then(
            (res) => {
              if (!live || current.current.name !== name) return
              const r = res.items[0]
              setItems((prev) => {
                const at = prev.findIndex((x) => x.id === e.record.id)
                if (!r) return at === -1 ? prev : prev.filter((x) => x.id !== e.record.id)
                if (at === -1) return e.action === 'create' ? [r, ...prev] : prev
                const next = prev.slice()
                next[at] = r
                return next
              })
              if (r && e.action === 'create') setTotal((t) => (t === null ? t : t + 1))
            },
            () => undefined,
          )
      })
      .then(
        (u) => {
          if (live) unsubscribe = u
          else void u()
        },
        () => undefined,
      )
    return () => {
      live = false
      if (unsubscribe) void unsubscribe()
    }
  }, [collection.id, expand])

  return {
    items,
    loading,
    error,
    hasMore,
    total,
    counting,
    loadMore() {
      const next = page + 1
      setPage(next)
      load(next, gen.current)
    },
    count() {
      setCounting(true)
      pb.collection(collection.name)
        .getList(1, 1, { filter, fields: 'id' })
        .then(
          (res) => setTotal(res.totalItems),
          (err: unknown) => setError(errorMessage(err)),
        )
        .finally(() => setCounting(false))
    },
    reload() {
      setGeneration((g) => g + 1)
    },
    drop(ids) {
      const gone = new Set(ids)
      setItems((prev) => prev.filter((r) => !gone.has(r.id)))
      setTotal((t) => (t === null ? t : Math.max(0, t - ids.length)))
    },
    put(record) {
      setItems((prev) => {
        const at = prev.findIndex((x) => x.id === record.id)
        if (at === -1) return [record, ...prev]
        const next = prev.slice()
        next[at] = record
        return next
      })
    },
  }
}
