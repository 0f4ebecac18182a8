/**
 * PocketBase's synchronous finds (`$app.findRecordById`, `findRecordsByFilter`,
 * `findFirstRecordByFilter`) on the store's optional synchronous reads. Like PocketBase's, they
 * are superuser-level: no collection rule applies. Filters and sorts compile through the same
 * rule compiler and dialect as the records API; rows become records through the record service's
 * own decoding (`recordFromRow`).
 */
import type { App } from '../../../core/app.js'
import { systemRequest } from '../../../core/auth/superusers.js'
import type { Collection } from '../../../core/collections/model.js'
import { messages, notFound } from '../../../core/errors.js'
import { byId, MAIN, ruleContext, selectFrom } from '../../../core/records/query.js'
import { recordFromRow } from '../../../core/records/serialize.js'
import { compileFilter, compileSort } from '../../../core/rules/index.js'
import type { RecordData } from '../../../core/request-info.js'
import type { Db, Row } from '../../../store/db.js'
import { column, join, sql, type Sql } from '../../../store/sql.js'
import { emailEquals } from '../../../core/auth/lookup.js'
import { asPbRecord, pbRecord, type PbRecord } from './record.js'
import { PbUnsupportedError } from './unsupported.js'

/** The collection a script names: a name or id, a collection object, or a record's. */
export function collectionOf(app: App, ref: unknown, name: string): Collection {
  let key = ''
  if (typeof ref === 'string') key = ref
  else if (asPbRecord(ref)) key = asPbRecord(ref)!.svcCollection.id
  else if (ref && typeof ref === 'object' && typeof (ref as { id?: unknown }).id === 'string')
    key = (ref as { id: string }).id
  else throw new Error(messages.pbBadArgument({ name, expected: 'a collection name or id' }))
  const c = app.registry.find(key)
  if (!c) throw notFound()
  return c
}

/** The synchronous reads of the collection's database, or a clear error naming the call. */
function syncDb(app: App, c: Collection, name: string): Required<Pick<Db, 'allSync' | 'getSync'>> {
  const db = app.dbFor(c)
  if (!db.allSync || !db.getSync)
    throw new PbUnsupportedError(name, messages.pbNoSyncReads({ name }))
  return { allSync: db.allSync.bind(db), getSync: db.getSync.bind(db) }
}

/**
 * A `{:name}` placeholder's text in a filter, as PocketBase writes it: numbers and booleans as
 * they are, null as `null`, anything else as a quoted text (objects as their JSON).
 */
function placeholderText(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  const s = typeof value === 'string' ? value : JSON.stringify(value)
  // NB: the filter lexer ends a text at the first quote not preceded by a backslash.
  return `"${s.replaceAll('"', '\\"')}"`
}

/** Replaces the `{:name}` placeholders of `filter` with the values of `params`. */
export function bindParams(filter: string, params: readonly unknown[]): string {
  let out = filter
  for (const p of params) {
    if (!p || typeof p !== 'object') continue
    for (const [k, v] of Object.entries(p as Record<string, unknown>))
      out = out.replaceAll(`{:${k}}`, placeholderText(v))
  }
  return out
}

/** The filtered, sorted query of a find, with its limit and offset. */
export function findQuery(
  app: App,
  c: Collection,
  filter: string,
  sort: string,
  limit: number,
  offset: number,
  params: readonly unknown[],
): Sql {
  const ctx = ruleContext(app, c, systemRequest(app), false)
  const bound = bindParams(String(filter ?? ''), params)
  const where = bound.trim() === '' ? null : compileFilter(bound, ctx)
  const order = String(sort ?? '').trim() === '' ? [] : compileSort(String(sort), ctx)
  let q = selectFrom(c, [where])
  if (order.length > 0) q = sql`${q} ORDER BY ${join(order)}`
  const lim = Math.trunc(Number(limit) || 0)
  const off = Math.max(0, Math.trunc(Number(offset) || 0))
  if (lim > 0 || off > 0) q = sql`${q} LIMIT ${lim > 0 ? lim : -1} OFFSET ${off}`
  return q
}

const toRecord = (c: Collection, row: Row): PbRecord => pbRecord(c, recordFromRow(c, row))

/**
 * A find as a query: the collection, the query (null when nothing can match) and whether it
 * answers one record (a 404 when none) or a list. The synchronous finds below run it on the
 * store's synchronous reads; `pb_migrations` files run it asynchronously (`runFindAsync`).
 */
export interface FindPlan {
  name: string
  c: Collection
  q: Sql | null
  one: boolean
}

/** The plans of the finds, by the `$app` method's name. */
export const FIND_PLANS = {
  findRecordById: (app: App, collection: unknown, id: unknown): FindPlan => {
    const name = '$app.findRecordById'
    const c = collectionOf(app, collection, name)
    const q = selectFrom(c, [byId(typeof id === 'string' ? id : String(id))])
    return { name, c, q, one: true }
  },
  findRecordsByFilter: (
    app: App,
    collection: unknown,
    filter: string,
    sort = '',
    limit = 0,
    offset = 0,
    ...params: unknown[]
  ): FindPlan => {
    const name = '$app.findRecordsByFilter'
    const c = collectionOf(app, collection, name)
    return { name, c, q: findQuery(app, c, filter, sort, limit, offset, params), one: false }
  },
  findFirstRecordByFilter: (
    app: App,
    collection: unknown,
    filter: string,
    ...params: unknown[]
  ): FindPlan => {
    const name = '$app.findFirstRecordByFilter'
    const c = collectionOf(app, collection, name)
    return { name, c, q: findQuery(app, c, filter, '', 1, 0, params), one: true }
  },
  findRecordsByIds: (app: App, collection: unknown, ids: unknown): FindPlan => {
    const name = '$app.findRecordsByIds'
    const c = collectionOf(app, collection, name)
    if (!Array.isArray(ids))
      throw new Error(messages.pbBadArgument({ name, expected: 'an array of ids' }))
    const list = ids.filter((id): id is string => typeof id === 'string')
    if (list.length === 0) return { name, c, q: null, one: false }
    const q = selectFrom(c, [sql`${column(MAIN, 'id')} IN (${join(list.map((id) => sql`${id}`))})`])
    return { name, c, q, one: false }
  },
  findAuthRecordByEmail: (app: App, collection: unknown, email: unknown): FindPlan => {
    const name = '$app.findAuthRecordByEmail'
    const c = collectionOf(app, collection, name)
    if (c.type !== 'auth') throw notFound()
    const text = typeof email === 'string' ? email : ''
    const q = selectFrom(c, [emailEquals(app.dbFor(c).dialect, c, column(MAIN, 'email'), text)])
    return { name, c, q, one: true }
  },
}

/** Runs a plan on the store's synchronous reads. */
function runFindSync(app: App, plan: FindPlan): PbRecord | PbRecord[] {
  const { name, c, q, one } = plan
  if (q === null) return []
  const db = syncDb(app, c, name)
  if (!one) return db.allSync(q).map((row) => toRecord(c, row))
  const row = db.getSync(q)
  if (!row) throw notFound()
  return toRecord(c, row)
}

/** Runs a plan asynchronously (any engine): the records' plain values, or a 404. */
export async function runFindAsync(app: App, plan: FindPlan): Promise<RecordData[]> {
  const { c, q, one } = plan
  if (q === null) return []
  const rows = await app.dbFor(c).all(q)
  if (one && rows.length === 0) throw notFound()
  return (one ? rows.slice(0, 1) : rows).map((row) => recordFromRow(c, row))
}

/** `$app.findRecordById(collection, id)`: the record, or a 404. */
export function findRecordById(app: App, collection: unknown, id: unknown): PbRecord {
  return runFindSync(app, FIND_PLANS.findRecordById(app, collection, id)) as PbRecord
}

/** The stored record `id` of `c` as plain values, or undefined (also without synchronous reads). */
export function storedRecord(app: App, c: Collection, id: string): RecordData | undefined {
  const db = app.dbFor(c)
  const row = db.getSync?.(selectFrom(c, [byId(id)]))
  return row ? recordFromRow(c, row) : undefined
}

/** `$app.findRecordsByFilter(collection, filter, sort?, limit?, offset?, ...params)`. */
export function findRecordsByFilter(
  app: App,
  collection: unknown,
  filter: string,
  sort = '',
  limit = 0,
  offset = 0,
  params: readonly unknown[] = [],
): PbRecord[] {
  const plan = FIND_PLANS.findRecordsByFilter(
    app,
    collection,
    filter,
    sort,
    limit,
    offset,
    ...params,
  )
  return runFindSync(app, plan) as PbRecord[]
}

/** `$app.findFirstRecordByFilter(collection, filter, ...params)`: the first match, or a 404. */
export function findFirstRecordByFilter(
  app: App,
  collection: unknown,
  filter: string,
  params: readonly unknown[] = [],
): PbRecord {
  const plan = FIND_PLANS.findFirstRecordByFilter(app, collection, filter, ...params)
  return runFindSync(app, plan) as PbRecord
}

/** `$app.findRecordsByIds(collection, ids)`: the records among `ids` that exist, in no set order. */
export function findRecordsByIds(app: App, collection: unknown, ids: unknown): PbRecord[] {
  return runFindSync(app, FIND_PLANS.findRecordsByIds(app, collection, ids)) as PbRecord[]
}

/** `$app.findAuthRecordByEmail(collection, email)`: the auth record, or a 404. */
export function findAuthRecordByEmail(app: App, collection: unknown, email: unknown): PbRecord {
  return runFindSync(app, FIND_PLANS.findAuthRecordByEmail(app, collection, email)) as PbRecord
}
