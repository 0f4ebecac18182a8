/** Record reads: list pages, single records by rule, and internal lookups by id. */
import { DbError, ReadTimeout } from '../../store/db.js'
import { join, sql } from '../../store/sql.js'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import { badRequest, messages, notFound } from '../errors.js'
import type { RecordData, RequestInfo } from '../request-info.js'
import type { RecordListOptions, RecordListResult } from './api.js'
import { byId, clientFilterAndSort, parseListParams, ruleCondition, selectFrom } from './query.js'
import { cachedCount } from './count-cache.js'
import { recordFromRow } from './serialize.js'

/**
 * A query of a client's filter and sort: values the engine refuses to evaluate (a strictly typed
 * engine: PostgreSQL's `text_field >= bool_field`, a NUL in text) are the filter's fault, a 400;
 * so is a read the read budget stopped when the client gave a filter or sort (`clientShaped`).
 */
async function typed<T>(query: Promise<T>, clientShaped: boolean): Promise<T> {
  try {
    return await query
  } catch (err) {
    if (err instanceof DbError && err.kind === 'type') {
      throw badRequest(messages.invalidFilter({ reason: TYPE_MISMATCH }), {}, err)
    }
    if (err instanceof ReadTimeout && clientShaped) {
      throw badRequest(messages.filterTimedOut({ ms: err.budgetMs }), {}, err)
    }
    throw err
  }
}

/** The reason of {@link typed}'s 400. */
const TYPE_MISMATCH = 'the database cannot evaluate it with these values'

/** Lists records visible to the requester; a failing listRule yields an empty page. */
export async function listRecords(
  app: App,
  collection: Collection,
  query: Record<string, unknown>,
  info: RequestInfo,
  opts: RecordListOptions = {},
): Promise<RecordListResult> {
  if (query.nearestTo !== undefined || query.nearestLimit !== undefined) {
    // Vector search (SPEC §4.2) is the vectors feature's, through the `vectors` service.
    const vectors = app.services.find('vectors')
    if (!vectors) throw badRequest(messages.nearestUnavailable)
    return vectors.search(app, collection, query, info)
  }
  const hasCreated = collection.fields.some((f) => f.name === 'created')
  // NB: records created in the same millisecond tie on `created`; the row id keeps "newest
  // first" exact for tables (views have no row id).
  const defaultSort = !hasCreated
    ? ''
    : collection.type === 'view'
      ? '-created'
      : '-created,-@rowid'
  const params = parseListParams(query, opts.maxPerPage ?? 500, defaultSort)
  const rule = ruleCondition(app, collection, 'listRule', info)
  const { where, order } = clientFilterAndSort(app, collection, params, info)
  const db = app.dbFor(collection)
  const base = selectFrom(collection, [rule, where])
  const ordered = order.length > 0 ? sql`${base} ORDER BY ${join(order)}` : base
  const clientShaped = where !== null || order.length > 0
  const rows = await typed(
    db.all(sql`${ordered} LIMIT ${params.perPage} OFFSET ${params.offset}`),
    clientShaped,
  )
  let totalItems = -1
  let totalPages = -1
  if (!params.skipTotal) {
    const countQuery = selectFrom(collection, [rule, where], sql`COUNT(*) AS n`)
    totalItems = await cachedCount(db, countQuery, async () => {
      const count = await typed(db.get<{ n: number }>(countQuery), clientShaped)
      return Number(count?.n ?? 0)
    })
    totalPages = Math.ceil(totalItems / params.perPage)
  }
  const records = rows.map((r) => recordFromRow(collection, r))
  return {
    page: params.page,
    perPage: params.perPage,
    totalItems,
    totalPages,
    items: await app.records.present(collection, records, info),
  }
}

/** Loads a record that passes `rule` for the requester (no rule: any record), or throws 404. */
export async function loadRecord(
  app: App,
  collection: Collection,
  id: string,
  rule: 'viewRule' | 'updateRule' | 'deleteRule' | null,
  info: RequestInfo,
): Promise<RecordData> {
  const condition = rule ? ruleCondition(app, collection, rule, info) : null
  const row = await app.dbFor(collection).get(selectFrom(collection, [byId(id), condition]))
  if (!row) throw notFound()
  return recordFromRow(collection, row)
}

/** Finds a record by id with no rule (internal use), or undefined. */
export async function findRecord(
  app: App,
  collection: Collection,
  id: string,
): Promise<RecordData | undefined> {
  const row = await app.dbFor(collection).get(selectFrom(collection, [byId(id)]))
  return row ? recordFromRow(collection, row) : undefined
}
