/**
 * Vector search (`nearestTo`, SPEC §4.2; docs/vectors.md): the query parameters checked, the
 * in-memory index of the field found or built, the candidates the listRule and `filter` leave
 * (one SQL query, skipped when neither restricts), an exact cosine top-k, and the k records loaded
 * and presented through the record service. Indexes are built lazily from the table, kept in step
 * by the record hooks after each commit and dropped on schema changes of their collection.
 */
import { endianness } from 'node:os'
import type { App } from '../../core/app.js'
import type { Collection, Field } from '../../core/collections/model.js'
import { ApiError, badRequest, messages } from '../../core/errors.js'
import { vectorDimensions, vectorFromDb } from '../../core/fields/vector.js'
import type { RecordListResult } from '../../core/records/api.js'
import {
  clientFilterAndSort,
  intQueryParam,
  MAIN,
  MAX_PAGE,
  ruleCondition,
  selectFrom,
} from '../../core/records/query.js'
import { recordFromRow } from '../../core/records/serialize.js'
import type { RecordData, RequestInfo } from '../../core/request-info.js'
import { column, join, param, sql, type Sql } from '../../store/sql.js'
import { normalised, topKOfSliced, topKSliced, VectorIndex, type Hit } from './rank.js'
import { parseNearestTo, parseVector } from './nearest-to.js'

/** `nearestLimit` when absent, and its largest value (DECISIONS). */
export const DEFAULT_NEAREST_LIMIT = 10
export const MAX_NEAREST_LIMIT = 100
/** The most records one search ranks (the candidate ceiling); more answer 400. */
export const MAX_CANDIDATES = 200_000
/** The most memory one field's index may take, in MiB; a larger field answers 400. */
export const MAX_INDEX_MIB = 512
/** The memory all indexes together may keep, in MiB; the least recently used go first. */
export const TOTAL_INDEX_MIB = 1024
/** Rows read per query while an index is built. */
const BUILD_CHUNK = 2000
/**
 * Searches that may wait for the ranker (one ranks at a time, in slices); one more answers 503.
 * Rankings take turns so that the event loop runs one slice at a time, however many guests rank
 * at once.
 */
export const MAX_WAITING_RANKINGS = 32

interface Entry {
  key: string
  collectionId: string
  field: string
  dims: number
  index: VectorIndex | null
  /** Changes seen while the index was being built, applied once it is. */
  pending: { id: string; vector: number[] | null }[] | null
  /** Changes seen while a ranking reads the index (it yields), applied when it ends. */
  deferred: { id: string; vector: number[] | null }[] | null
  building: Promise<VectorIndex> | null
  used: number
}

/** The per-app vector indexes and the search over them. */
export class VectorSearch {
  private readonly entries = new Map<string, Entry>()
  private clock = 0
  /** The end of the last ranking queued: rankings run one after the other. */
  private rankTail: Promise<unknown> = Promise.resolve()
  /** Rankings queued or running. */
  private rankings = 0

  constructor(private readonly app: App) {}

  /** The number of indexes held and their bytes (for tests and metrics). */
  stats(): { indexes: number; bytes: number } {
    let bytes = 0
    let indexes = 0
    for (const e of this.entries.values()) {
      if (!e.index) continue
      indexes++
      bytes += e.index.bytes
    }
    return { indexes, bytes }
  }

  /** Applies a committed record change to the indexes of its collection. */
  recordChanged(collection: Collection, record: RecordData, deleted: boolean): void {
    for (const e of this.entries.values()) {
      if (e.collectionId !== collection.id) continue
      const id = String(record.id)
      const raw = deleted ? null : record[e.field]
      const vector = Array.isArray(raw) ? (raw as number[]) : null
      if (e.pending) e.pending.push({ id, vector })
      else if (e.deferred) e.deferred.push({ id, vector })
      else e.index?.set(id, vector)
    }
  }

  /** Forgets the indexes of a collection (its schema changed, or it is gone). */
  dropCollection(collectionId: string): void {
    for (const [key, e] of this.entries)
      if (e.collectionId === collectionId) this.entries.delete(key)
  }

  /** Forgets every index. */
  clear(): void {
    this.entries.clear()
  }

  /** A `nearestTo` list (see docs/vectors.md for every rule it follows). */
  async search(
    app: App,
    collection: Collection,
    query: Record<string, unknown>,
    info: RequestInfo,
  ): Promise<RecordListResult> {
    const nearestTo = typeof query.nearestTo === 'string' ? query.nearestTo : ''
    if (query.nearestTo === undefined) throw badRequest(messages.nearestLimitAlone)
    const { field, target } = parseNearestTo(collection, nearestTo)
    const limit =
      intQueryParam(query.nearestLimit, 'nearestLimit', Infinity) ?? DEFAULT_NEAREST_LIMIT
    if (limit < 1 || limit > MAX_NEAREST_LIMIT)
      throw badRequest(messages.nearestLimitRange({ max: MAX_NEAREST_LIMIT }))
    if (typeof query.sort === 'string' && query.sort.trim() !== '')
      throw badRequest(messages.nearestSortRefused)
    if ((intQueryParam(query.page, 'page', MAX_PAGE) ?? 1) > 1)
      throw badRequest(messages.nearestPageRefused)
    const dims = vectorDimensions(field)
    // The rule and the filter compile first: a bad filter answers 400 before anything is built.
    const rule = ruleCondition(app, collection, 'listRule', info)
    const filter = typeof query.filter === 'string' ? query.filter : ''
    const { where } = clientFilterAndSort(
      app,
      collection,
      { page: 1, perPage: limit, skipTotal: true, filter, sort: '' },
      info,
    )
    let q: Float64Array | null
    let excludeId: string | null = null
    if (target.kind === 'vector') {
      const v = parseVector(target.text)
      if (v.length !== dims)
        throw badRequest(
          messages.nearestToDimensions({ field: field.name, dimensions: dims, got: v.length }),
        )
      q = normalised(v.map((x) => Math.fround(x)))
      if (!q) throw badRequest(messages.nearestToZero)
    } else {
      const record = await app.records.load(collection, target.id, 'viewRule', info)
      const v = vectorFromDb(record[field.name])
      q = v && v.length === dims ? normalised(v) : null
      if (!q) throw badRequest(messages.nearestToRecordNoVector({ field: field.name }))
      excludeId = target.id
    }
    const index = await this.indexFor(app, collection, field)
    let candidates: string[] | null = null
    if (rule === null && where === null) {
      if (index.count > MAX_CANDIDATES)
        throw badRequest(messages.nearestTooManyCandidates({ max: MAX_CANDIDATES }))
    } else {
      const notNull = sql`${column(MAIN, field.name)} IS NOT NULL`
      const rows = await app
        .dbFor(collection)
        .all<{ id: string }>(
          sql`${selectFrom(collection, [rule, where, notNull], sql`${column(MAIN, 'id')} AS id`)} LIMIT ${param(MAX_CANDIDATES + 1)}`,
        )
      if (rows.length > MAX_CANDIDATES)
        throw badRequest(messages.nearestTooManyCandidates({ max: MAX_CANDIDATES }))
      candidates = rows.map((r) => String(r.id))
    }
    const unit = q
    const ids = await this.ranked(index, async () => {
      // Slots are read in the ranking's turn: the index does not change until it ends.
      const exclude = excludeId === null ? -1 : (index.slotOf(excludeId) ?? -1)
      let hits: Hit[]
      if (candidates === null) {
        hits = await topKSliced(
          index.data,
          index.invNorm,
          index.dims,
          index.count,
          unit,
          limit,
          exclude,
        )
      } else {
        const slots: number[] = []
        for (const id of candidates) {
          const s = index.slotOf(id)
          if (s !== undefined) slots.push(s)
        }
        hits = await topKOfSliced(index, unit, slots, limit, exclude)
      }
      return hits.map((h) => index.ids[h.slot]!)
    })
    // The rule and filter apply again to the k rows read: a stale index can never show a record
    // the caller may not list (it can only miss one).
    const records = await loadByIds(app, collection, ids, [rule, where])
    const items = await app.records.present(collection, records, info)
    return {
      page: 1,
      perPage: limit,
      totalItems: items.length,
      totalPages: items.length > 0 ? 1 : 0,
      items,
    }
  }

  /**
   * Runs `rank` in its turn (one ranking at a time; 503 when {@link MAX_WAITING_RANKINGS} already
   * wait). While it runs, changes to the index are deferred and applied once it ends, so a ranking
   * that yields reads one unchanging index.
   */
  private async ranked<T>(index: VectorIndex, rank: () => Promise<T>): Promise<T> {
    if (this.rankings > MAX_WAITING_RANKINGS) throw new ApiError(503, messages.nearestBusy)
    this.rankings++
    const previous = this.rankTail
    let done!: () => void
    this.rankTail = new Promise<void>((resolve) => (done = resolve))
    try {
      await previous
      const entry = [...this.entries.values()].find((e) => e.index === index)
      if (entry) entry.deferred = []
      try {
        return await rank()
      } finally {
        if (entry) {
          const changes = entry.deferred ?? []
          entry.deferred = null
          for (const change of changes) index.set(change.id, change.vector)
        }
      }
    } finally {
      this.rankings--
      done()
    }
  }

  /** The index of `field`, built from the table on first use (views: built for each search). */
  private async indexFor(app: App, collection: Collection, field: Field): Promise<VectorIndex> {
    const dims = vectorDimensions(field)
    if (collection.type === 'view')
      return (await buildIndex(app, collection, field, dims, null)).index
    const key = `${collection.id}\u0000${field.name}\u0000${dims}`
    let e = this.entries.get(key)
    if (!e) {
      e = {
        key,
        collectionId: collection.id,
        field: field.name,
        dims,
        index: null,
        pending: null,
        deferred: null,
        building: null,
        used: 0,
      }
      this.entries.set(key, e)
    }
    e.used = ++this.clock
    if (e.index) return e.index
    if (e.building) return e.building
    const entry = e
    entry.pending = []
    const building = buildIndex(app, collection, field, dims, (bytes) =>
      this.makeRoom(bytes, entry),
    )
      .then(({ index }) => {
        for (const change of entry.pending ?? []) index.set(change.id, change.vector)
        entry.pending = null
        entry.index = index
        return index
      })
      .catch((err: unknown) => {
        this.entries.delete(entry.key)
        throw err
      })
      .finally(() => {
        entry.building = null
      })
    entry.building = building
    return building
  }

  /** Drops the least recently used indexes until `bytes` more fit in the total budget. */
  private makeRoom(bytes: number, keep: Entry): void {
    const budget = TOTAL_INDEX_MIB * 1024 * 1024
    let used = bytes
    for (const e of this.entries.values()) if (e.index && e !== keep) used += e.index.bytes
    const lru = [...this.entries.values()]
      .filter((e) => e.index && e !== keep)
      .sort((a, b) => a.used - b.used)
    for (const e of lru) {
      if (used <= budget) break
      used -= e.index!.bytes
      this.entries.delete(e.key)
    }
  }
}

/**
 * Reads every stored vector of `field` in chunks (keyset on `id`), into a new index. `reserve`
 * hears the bytes the index is about to take (so others can be dropped); a field over
 * {@link MAX_INDEX_MIB} or {@link MAX_CANDIDATES} rows is refused.
 */
async function buildIndex(
  app: App,
  collection: Collection,
  field: Field,
  dims: number,
  reserve: ((bytes: number) => void) | null,
): Promise<{ index: VectorIndex }> {
  const db = app.dbFor(collection)
  const col = column(MAIN, field.name)
  const count = await db.get<{ n: number }>(
    selectFrom(collection, [sql`${col} IS NOT NULL`], sql`COUNT(*) AS n`),
  )
  const n = Number(count?.n ?? 0)
  const bytes = n * (dims * 4 + 8)
  if (bytes > MAX_INDEX_MIB * 1024 * 1024)
    throw badRequest(messages.nearestIndexTooLarge({ max: MAX_INDEX_MIB }))
  if (n > MAX_CANDIDATES)
    throw badRequest(messages.nearestTooManyCandidates({ max: MAX_CANDIDATES }))
  reserve?.(bytes)
  const index = new VectorIndex(dims, n + 64)
  let after = ''
  for (;;) {
    const rows = await db.all<{ id: string; v: unknown }>(
      sql`${selectFrom(
        collection,
        [sql`${col} IS NOT NULL`, sql`${column(MAIN, 'id')} > ${param(after)}`],
        sql`${column(MAIN, 'id')} AS id, ${col} AS v`,
      )} ORDER BY ${column(MAIN, 'id')} LIMIT ${param(BUILD_CHUNK)}`,
    )
    for (const r of rows) index.set(String(r.id), storedVector(r.v, dims))
    if (rows.length < BUILD_CHUNK) break
    after = String(rows[rows.length - 1]!.id)
    if (index.count > MAX_CANDIDATES)
      throw badRequest(messages.nearestTooManyCandidates({ max: MAX_CANDIDATES }))
  }
  return { index }
}

const littleEndian = endianness() === 'LE'

/** A stored vector as numbers: a float32 BLOB read in place (no copy into a JS array). */
function storedVector(raw: unknown, dims: number): ArrayLike<number> | null {
  if (littleEndian && raw instanceof Uint8Array && raw.length === dims * 4) {
    return raw.byteOffset % 4 === 0
      ? new Float32Array(raw.buffer, raw.byteOffset, dims)
      : new Float32Array(Uint8Array.from(raw).buffer)
  }
  return vectorFromDb(raw)
}

/** The records of `ids` that pass `conditions`, in that order (others are skipped). */
async function loadByIds(
  app: App,
  collection: Collection,
  ids: string[],
  conditions: (Sql | null)[],
): Promise<RecordData[]> {
  if (ids.length === 0) return []
  const byIds = sql`${column(MAIN, 'id')} IN (${join(ids.map((id) => param(id)))})`
  const rows = await app.dbFor(collection).all(selectFrom(collection, [byIds, ...conditions]))
  const byId = new Map(rows.map((r) => [String(r.id), r]))
  const out: RecordData[] = []
  for (const id of ids) {
    const row = byId.get(id)
    if (row) out.push(recordFromRow(collection, row))
  }
  return out
}
