import { column, ident, join, sql, type Sql } from '../../store/sql.js'
import type { App } from '../app.js'
import { badRequest, forbidden, messages } from '../errors.js'
import type { Collection, RuleKey } from '../collections/model.js'
import { compileFilter, compileSortScoped, type RuleContext } from '../rules/index.js'
import { isSuperuser, type RequestInfo } from '../request-info.js'

/** The alias of the main table in record queries. */
export const MAIN = '__r'

/**
 * A rule context for a collection and requester. `tableRows`: the condition will read the
 * collection's table under `MAIN` (as `selectFrom` does), not a derived row of values.
 */
export function ruleContext(
  app: App,
  collection: Collection,
  info: RequestInfo | null,
  restricted: boolean,
  tableRows = false,
): RuleContext {
  return {
    dialect: app.dbFor(collection).dialect,
    collection,
    alias: MAIN,
    findCollection: (n) => app.registry.find(n),
    request: info,
    restricted,
    tableRows,
  }
}

/**
 * The access condition of `rule` for a requester: `null` when there is no restriction
 * (superuser or public rule). A `null` rule answers non-superusers 403.
 */
export function ruleCondition(
  app: App,
  collection: Collection,
  key: RuleKey | 'manageRule' | 'authRule',
  info: RequestInfo,
): Sql | null {
  if (isSuperuser(info)) return null
  const rule =
    key === 'manageRule' || key === 'authRule'
      ? (collection.authOptions?.[key] ?? null)
      : collection[key]
  if (rule === null) throw forbidden(messages.onlySuperusers)
  if (rule.trim() === '') return null
  return compileFilter(rule, ruleContext(app, collection, info, false, true))
}

/** `SELECT * FROM <table> AS __r WHERE <conditions>`. */
export function selectFrom(
  collection: Collection,
  conditions: (Sql | null)[],
  what: Sql = sql`${ident(MAIN)}.*`,
): Sql {
  const where = conditions.filter((c): c is Sql => c !== null)
  const base = sql`SELECT ${what} FROM ${ident(collection.name)} AS ${ident(MAIN)}`
  return where.length === 0
    ? base
    : sql`${base} WHERE ${join(
        where.map((w) => sql`(${w})`),
        ' AND ',
      )}`
}

/** `__r.id = ?`. */
export function byId(id: string): Sql {
  return sql`${column(MAIN, 'id')} = ${id}`
}

/** Parsed list parameters. */
export interface ListParams {
  page: number
  perPage: number
  /** The rows skipped before the page: `(page - 1) * perPage`, as PocketBase computes it. */
  offset: number
  skipTotal: boolean
  filter: string
  sort: string
}

const text = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '\u0000'

/** The first value of a repeated query parameter (`?sort=a&sort=b` is `a`), as Go reads it. */
export const firstValue = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v)

/**
 * The largest `page` of a vector search: its row offset must stay an exact integer for the
 * database (at most 2^53 in JavaScript).
 */
export const MAX_PAGE = 1_000_000_000

/** The largest `page` of a list: PocketBase reads it as a Go int (int64). */
const MAX_LIST_PAGE = 2n ** 63n - 1n

/**
 * Parses an integer query parameter (`undefined` when absent): anything but an optionally signed
 * run of digits, or a value above `max`, answers 400 naming the parameter.
 */
export function intQueryParam(v: unknown, name: string, max: number): number | undefined {
  if (v === undefined || v === '') return undefined
  const s = text(v)
  if (!/^-?\d+$/.test(s)) throw badRequest(messages.queryNotInteger({ name }))
  const n = Number(s)
  if (n > max) throw badRequest(messages.queryTooLarge({ name, max }))
  return n
}

/**
 * `page` as PocketBase reads it: any int64 (above: 400), 0 and below are 1. The offset is
 * computed in int64 as Go does: a page so large that it wraps around reads from the start
 * (`page=9223372036854775807` answers the first rows), as PocketBase answers it.
 */
function pageParam(v: unknown, perPage: number): { page: number; offset: number } {
  if (v === undefined || v === '') return { page: 1, offset: 0 }
  const s = text(v)
  if (!/^-?\d+$/.test(s)) throw badRequest(messages.queryNotInteger({ name: 'page' }))
  const n = BigInt(s)
  if (n > MAX_LIST_PAGE) {
    throw badRequest(messages.queryTooLarge({ name: 'page', max: MAX_LIST_PAGE.toString() }))
  }
  if (n <= 0n) return { page: 1, offset: 0 }
  const offset = BigInt.asIntN(64, (n - 1n) * BigInt(perPage))
  // NB: an offset past 2^53 rows is past the end of any table: the last exact one says so.
  const exact = offset < 0n ? 0 : Math.min(Number(offset), Number.MAX_SAFE_INTEGER)
  return { page: Number(n), offset: exact }
}

const boolParam = (v: unknown): boolean => {
  if (v === undefined || v === '') return false
  const s = text(v).toLowerCase()
  if (['1', 't', 'true'].includes(s)) return true
  if (['0', 'f', 'false'].includes(s)) return false
  throw badRequest(messages.skipTotalNotBoolean)
}

/**
 * Parses `page`, `perPage`, `skipTotal`, `filter`, `sort` of a list query; of a repeated
 * parameter the first value counts, as in PocketBase.
 */
export function parseListParams(
  query: Record<string, unknown>,
  maxPerPage: number,
  defaultSort: string,
): ListParams {
  // NB: a perPage above the cap is lowered to it, never refused (reference §0.8).
  const asked = intQueryParam(firstValue(query.perPage), 'perPage', Infinity) ?? 30
  const perPage = asked <= 0 ? 30 : Math.min(asked, maxPerPage)
  const filter = firstValue(query.filter)
  const sort = firstValue(query.sort)
  return {
    ...pageParam(firstValue(query.page), perPage),
    perPage,
    skipTotal: boolParam(firstValue(query.skipTotal)),
    filter: typeof filter === 'string' ? filter : '',
    sort: typeof sort === 'string' && sort !== '' ? sort : defaultSort,
  }
}

/** True when the last key of a (valid) sort list is descending: `title,-created`. */
function lastKeyDescending(sort: string): boolean {
  // NB: sort keys are identifiers (tools/filter/sort.ts): a comma only ever separates keys.
  return sort
    .slice(sort.lastIndexOf(',') + 1)
    .trimStart()
    .startsWith('-')
}

/** Compiles the client filter and sort of a list request. */
export function clientFilterAndSort(
  app: App,
  collection: Collection,
  params: Pick<ListParams, 'filter' | 'sort'> & Partial<ListParams>,
  info: RequestInfo,
): { where: Sql | null; order: Sql[] } {
  const ctx = ruleContext(app, collection, info, !isSuperuser(info), true)
  const filter = params.filter === '' ? null : compileFilter(params.filter, ctx)
  // NB: as in PocketBase, a sort of spaces only is a 400 (an empty one is the default).
  if (params.sort !== '' && params.sort.trim() === '') {
    throw badRequest(messages.invalidSort({ reason: 'sort is empty' }))
  }
  const sort = params.sort === '' ? null : compileSortScoped(params.sort, ctx)
  // NB: a copy: compiled sorts are cached and shared.
  const order = sort ? [...sort.order] : []
  const where =
    filter && sort?.where ? sql`(${filter}) AND (${sort.where})` : (filter ?? sort?.where ?? null)
  // NB: a table's row id ends the ORDER BY unless the sort names it, so rows equal under the
  // sort come in the same order on every engine: in the direction of the sort's last key
  // (`-created` is newest first down to the row, as the default sort). That is also the order
  // of an index on that key read backwards: an ascending tie-break after a descending key made
  // SQLite sort each page again (a temporary b-tree, ~7 % of a list-20 request).
  const rowid = collection.type === 'view' ? null : ctx.dialect.rowid(MAIN)
  if (order.length > 0 && rowid && !/@rowid\b/.test(params.sort)) {
    order.push(sql`${rowid} ${ctx.dialect.sortDirection(lastKeyDescending(params.sort))}`)
  }
  return { where, order }
}

/** True when the record `id` of `collection` satisfies `condition` (no condition: it exists). */
export async function recordSatisfies(
  app: App,
  collection: Collection,
  id: string,
  condition: Sql | null,
): Promise<boolean> {
  const row = await app
    .dbFor(collection)
    .get(selectFrom(collection, [byId(id), condition], sql`1 AS ok`))
  return row !== undefined
}
