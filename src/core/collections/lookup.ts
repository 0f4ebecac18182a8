/** The lookups field validation makes while a collection or record is checked. */
import { ident, join, param, sql } from '../../store/sql.js'
import type { App } from '../app.js'
import type { FieldLookup } from '../fields/field-type.js'
import type { Collection } from './model.js'

/** How many ids one existence lookup binds at most. */
const LOOKUP_IDS_PER_QUERY = 1000

/** What field validation may look up, and every collection. */
export type CollectionLookup = FieldLookup & { all(): Collection[] }

/**
 * What field validation may look up in `app`. `missingIds` calls made in the same tick for the
 * same collection are answered by one query, so a record's relation fields (validated together)
 * cost one lookup per target collection.
 */
export function createLookup(app: App): CollectionLookup {
  interface Waiter {
    ids: readonly string[]
    resolve: (missing: string[]) => void
    reject: (err: unknown) => void
  }
  interface Batch {
    collection: Collection
    ids: Set<string>
    waiters: Waiter[]
  }
  let pending: Map<string, Batch> | null = null
  const query = async (collection: Collection, ids: string[]): Promise<Set<string>> => {
    const found = new Set<string>()
    // NB: in chunks, so a relation holding tens of thousands of ids never exceeds the number
    // of parameters one statement may bind.
    for (let i = 0; i < ids.length; i += LOOKUP_IDS_PER_QUERY) {
      const chunk = ids.slice(i, i + LOOKUP_IDS_PER_QUERY)
      const rows = await app
        .dbFor(collection)
        .all<{ id: string }>(
          sql`SELECT id FROM ${ident(collection.name)} WHERE id IN (${join(chunk.map((id) => param(id)))})`,
        )
      for (const r of rows) found.add(r.id)
    }
    return new Set(ids.filter((id) => !found.has(id)))
  }
  const flush = () => {
    const batches = pending
    pending = null
    for (const b of batches?.values() ?? []) {
      query(b.collection, [...b.ids]).then(
        (missing) => {
          for (const w of b.waiters) w.resolve([...new Set(w.ids)].filter((id) => missing.has(id)))
        },
        (err: unknown) => {
          for (const w of b.waiters) w.reject(err)
        },
      )
    }
  }
  return {
    findCollection: (n) => app.registry.find(n),
    all: () => app.registry.all(),
    missingIds: (collection, ids) => {
      if (ids.length === 0) return Promise.resolve([])
      return new Promise<string[]>((resolve, reject) => {
        if (!pending) {
          pending = new Map()
          queueMicrotask(flush)
        }
        let batch = pending.get(collection.id)
        if (!batch) {
          batch = { collection, ids: new Set(), waiters: [] }
          pending.set(collection.id, batch)
        }
        for (const id of ids) batch.ids.add(id)
        batch.waiters.push({ ids, resolve, reject })
      })
    },
  }
}
