/**
 * Totals of lists, remembered until the data changes. A list with its total runs
 * `SELECT COUNT(*)` over every row its rule and filter let through, which on a large collection
 * costs more than the page itself; asked again with the same SQL and values while nothing was
 * committed anywhere (the engine's `Db.dataVersion`), the total is the same number.
 */
import type { Db } from '../../store/db.js'
import type { Sql } from '../../store/sql.js'

/** Totals kept per database, at most this many (the oldest goes first). */
const CAPACITY = 1000

interface Entry {
  version: number
  n: number
}

const caches = new WeakMap<Db, Map<string, Entry>>()

/**
 * The cache key of a count, or null when its answer may change without a commit: a value
 * SQLite reads as the current time (`strftime(…)` without a date is bound as `'now'`), or one
 * that has no faithful text form.
 */
function keyOf(db: Db, query: Sql): string | null {
  const { sql, params } = db.dialect.compile(query)
  for (const p of params) {
    if (typeof p === 'bigint' || typeof p === 'function' || typeof p === 'symbol') return null
    if (typeof p === 'string' && p.trim().toLowerCase() === 'now') return null
  }
  return `${sql}\u0000${JSON.stringify(params)}`
}

/** `count()` (the total of `query`), or the total it gave when no commit happened since. */
export async function cachedCount(
  db: Db,
  query: Sql,
  count: () => Promise<number>,
): Promise<number> {
  const version = db.dataVersion?.()
  if (version === undefined) return count()
  const key = keyOf(db, query)
  if (key === null) return count()
  let cache = caches.get(db)
  if (!cache) {
    cache = new Map()
    caches.set(db, cache)
  }
  const hit = cache.get(key)
  if (hit && hit.version === version) return hit.n
  const n = await count()
  cache.delete(key)
  if (cache.size >= CAPACITY) cache.delete(cache.keys().next().value!)
  cache.set(key, { version, n })
  return n
}
