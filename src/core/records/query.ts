import { column, ident, join, sql, type Sql } from '../../store/sql.js'
import type { App } from '../app.js'
import { badRequest, forbidden, messages } from '../errors.js'
import type { Collection, RuleKey } from '../collections/model.js'
import { compileFilter, compileSort, type RuleContext } from '../rules/index.js'
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
  skipTotal: boolean
  filter: string
  sort: string
}

const text = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '\u0000'

/**
 * The largest `page` of a list: the row offset `(page - 1) * perPage` must stay an exact integer
 * for the database (at most 2^53 in JavaScript, 2^63 in SQL), whatever the perPage.
 */
export const MAX_PAGE = 1_000_000_000

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

const boolParam = (v: unknown): boolean => {
  if (v === undefined || v === '') return false
  const s = text(v).toLowerCase()
  if (['1', 't', 'true'].includes(s)) return true
  if (['0', 'f', 'false'].includes(s)) return false
  throw badRequest(messages.skipTotalNotBoolean)
}

/** Parses `page`, `perPage`, `skipTotal`, `filter`, `sort` of a list query. */
export function parseListParams(
  query: Record<string, unknown>,
  maxPerPage: number,
  defaultSort: string,
): ListParams {
  const page = intQueryParam(query.page, 'page', MAX_PAGE) ?? 1
  // NB: a perPage above the cap is lowered to it, never refused (reference §0.8).
  const perPage = intQueryParam(query.perPage, 'perPage', Infinity) ?? 30
  return {
    page: page <= 0 ? 1 : page,
    perPage: perPage <= 0 ? 30 : Math.min(perPage, maxPerPage),
    skipTotal: boolParam(query.skipTotal),
    filter: typeof query.filter === 'string' ? query.filter : '',
    sort: typeof query.sort === 'string' && query.sort !== '' ? query.sort : defaultSort,
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
  params: ListParams,
  info: RequestInfo,
): { where: Sql | null; order: Sql[] } {
  const ctx = ruleContext(app, collection, info, !isSuperuser(info), true)
  const where = params.filter.trim() === '' ? null : compileFilter(params.filter, ctx)
  // NB: a copy: compiled sorts are cached and shared.
  const order = params.sort.trim() === '' ? [] : [...compileSort(params.sort, ctx)]
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
