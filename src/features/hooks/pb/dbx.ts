/**
 * PocketBase's `$dbx` expressions for `*.pb.js` scripts (ozzo-dbx's `Expression`s): `exp`,
 * `hashExp`, `and`, `or`, `not`, `in`, `notIn`, `like`, `notLike`, `orLike`, `orNotLike`,
 * `between`, `notBetween`, `exists`, `notExists`, as values for the `$app` calls that take them
 * (`findAllRecords`, `countRecords`, below). Each builds parameterised SQL through the `sql`
 * template: values are always bound, column names quoted by the store's dialect, and the text of
 * `exp` is the script author's own (PocketBase's, written for SQLite), with `{:name}`
 * placeholders bound from its params, `[[name]]` a quoted column and `{{name}}` a quoted table.
 */
import type { App } from '../../../core/app.js'
import type { Collection } from '../../../core/collections/model.js'
import { messages, notFound } from '../../../core/errors.js'
import { selectFrom } from '../../../core/records/query.js'
import { recordFromRow } from '../../../core/records/serialize.js'
import type { Db } from '../../../store/db.js'
import { ident, join, param, raw, sql, type Sql } from '../../../store/sql.js'
import { collectionOf } from './find.js'
import { pbRecord, type PbRecord } from './record.js'
import { PbUnsupportedError, strict } from './unsupported.js'

/** The SQL of an expression (null: an empty expression, which adds no condition). */
const BUILD = Symbol('svcbase.dbxBuild')

interface Expression {
  [BUILD]: () => Sql | null
}

const expression = (build: () => Sql | null): Expression => ({ [BUILD]: build })

const isExpression = (v: unknown): v is Expression =>
  typeof v === 'object' && v !== null && BUILD in v

/** An expression argument's SQL, or a clear error naming the call. */
function built(v: unknown, name: string): Sql | null {
  if (!isExpression(v))
    throw new Error(messages.pbBadArgument({ name, expected: 'a $dbx expression' }))
  return v[BUILD]()
}

/** A column name as ozzo-dbx quotes it: each dotted part quoted. */
function col(name: unknown, call: string): Sql {
  if (typeof name !== 'string' || name === '')
    throw new Error(messages.pbBadArgument({ name: call, expected: 'a column name' }))
  return join(name.split('.').map(ident), '.')
}

/** `exp` text: `{:name}` bound from `params`, `[[col]]` and `{{table}}` quoted, the rest raw. */
function expText(text: string, params: Record<string, unknown>): Sql {
  const parts: Sql[] = []
  let last = 0
  for (const m of text.matchAll(/\{:(\w+)\}|\[\[([\w.]+)\]\]|\{\{([\w.]+)\}\}/g)) {
    parts.push(raw(text.slice(last, m.index)))
    if (m[1] !== undefined) {
      if (!(m[1] in params))
        throw new Error(messages.pbBadArgument({ name: `{:${m[1]}}`, expected: 'a bound value' }))
      const v = params[m[1]]
      parts.push(param(typeof v === 'object' && v !== null ? JSON.stringify(v) : v))
    } else parts.push(col(m[2] ?? m[3], '$dbx.exp'))
    last = m.index + m[0].length
  }
  parts.push(raw(text.slice(last)))
  return join(parts, '')
}

/** A value as a bound parameter (objects as their JSON). */
const value = (v: unknown): Sql =>
  param(typeof v === 'object' && v !== null ? JSON.stringify(v) : v)

/** Conditions joined by `op`, each in parentheses (empty ones left out). */
function combine(op: 'AND' | 'OR', items: readonly unknown[], name: string): Expression {
  return expression(() => {
    const parts = items.map((e) => built(e, name)).filter((s): s is Sql => s !== null)
    if (parts.length === 0) return null
    if (parts.length === 1) return parts[0] as Sql
    return join(
      parts.map((p) => sql`(${p})`),
      ` ${op} `,
    )
  })
}

/** `col IN (…)` (an empty list: `0=1`, or `1=1` negated, as ozzo-dbx builds it). */
function inExp(negate: boolean, column: unknown, values: unknown[], name: string): Expression {
  return expression(() => {
    const c = col(column, name)
    const list = values.length === 1 && Array.isArray(values[0]) ? values[0] : values
    if (list.length === 0) return raw(negate ? '1=1' : '0=1')
    const vals = join(list.map(value))
    return negate ? sql`${c} NOT IN (${vals})` : sql`${c} IN (${vals})`
  })
}

/**
 * ozzo-dbx's LIKE: each value `%value%` with `%`, `_` and `\` escaped by a backslash, joined by
 * `joiner`, and no `ESCAPE` clause, as PocketBase builds it (so on SQLite a value holding `%` or
 * `_` matches nothing, as on PocketBase; PostgreSQL's LIKE takes the backslash as its escape).
 */
function likeExp(
  op: 'LIKE' | 'NOT LIKE',
  joiner: 'AND' | 'OR',
  column: unknown,
  values: unknown[],
  name: string,
): Expression {
  return expression(() => {
    const c = col(column, name)
    if (values.length === 0) return null
    const parts = values.map((v) => {
      const escaped = String(v).replace(/[\\%_]/g, (ch) => `\\${ch}`)
      return sql`${c} ${raw(op)} ${`%${escaped}%`}`
    })
    return join(parts, ` ${joiner} `)
  })
}

/** PocketBase's `$dbx`. */
export function dbxGlobal(): object {
  return strict('$dbx', {
    exp: (text: unknown, params?: unknown) => {
      const t = typeof text === 'string' ? text : ''
      const p = params && typeof params === 'object' ? (params as Record<string, unknown>) : {}
      return expression(() => (t.trim() === '' ? null : expText(t, p)))
    },
    hashExp: (map: unknown) =>
      expression(() => {
        const entries = map && typeof map === 'object' ? Object.entries(map) : []
        if (entries.length === 0) return null
        const parts = entries
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, v]) => {
            const c = col(k, '$dbx.hashExp')
            if (v === null || v === undefined) return sql`${c} IS NULL`
            if (Array.isArray(v)) return built(inExp(false, k, v, '$dbx.hashExp'), '$dbx.hashExp')!
            if (isExpression(v)) return built(v, '$dbx.hashExp') ?? raw('1=1')
            return sql`${c}=${value(v)}`
          })
        return parts.length === 1
          ? (parts[0] as Sql)
          : join(
              parts.map((s) => sql`(${s})`),
              ' AND ',
            )
      }),
    and: (...items: unknown[]) => combine('AND', items, '$dbx.and'),
    or: (...items: unknown[]) => combine('OR', items, '$dbx.or'),
    not: (e: unknown) =>
      expression(() => {
        const s = built(e, '$dbx.not')
        return s === null ? null : sql`NOT (${s})`
      }),
    in: (column: unknown, ...values: unknown[]) => inExp(false, column, values, '$dbx.in'),
    notIn: (column: unknown, ...values: unknown[]) => inExp(true, column, values, '$dbx.notIn'),
    like: (column: unknown, ...values: unknown[]) =>
      likeExp('LIKE', 'AND', column, values, '$dbx.like'),
    notLike: (column: unknown, ...values: unknown[]) =>
      likeExp('NOT LIKE', 'AND', column, values, '$dbx.notLike'),
    orLike: (column: unknown, ...values: unknown[]) =>
      likeExp('LIKE', 'OR', column, values, '$dbx.orLike'),
    orNotLike: (column: unknown, ...values: unknown[]) =>
      likeExp('NOT LIKE', 'OR', column, values, '$dbx.orNotLike'),
    between: (column: unknown, from: unknown, to: unknown) =>
      expression(() => sql`${col(column, '$dbx.between')} BETWEEN ${value(from)} AND ${value(to)}`),
    notBetween: (column: unknown, from: unknown, to: unknown) =>
      expression(
        () => sql`${col(column, '$dbx.notBetween')} NOT BETWEEN ${value(from)} AND ${value(to)}`,
      ),
    exists: (e: unknown) =>
      expression(() => {
        const s = built(e, '$dbx.exists')
        return s === null ? raw('0=1') : sql`EXISTS (${s})`
      }),
    notExists: (e: unknown) =>
      expression(() => {
        const s = built(e, '$dbx.notExists')
        return s === null ? raw('1=1') : sql`NOT EXISTS (${s})`
      }),
  })
}

/** The synchronous reads of a collection's database, or a clear error naming the call. */
function syncReads(app: App, c: Collection, name: string): Required<Pick<Db, 'allSync'>> {
  const db = app.dbFor(c)
  if (!db.allSync) throw new PbUnsupportedError(name, messages.pbNoSyncReads({ name }))
  return { allSync: db.allSync.bind(db) }
}

/** The WHERE conditions of the expressions a call was given. */
const conditions = (exprs: unknown[], name: string): (Sql | null)[] =>
  exprs.map((e) => built(e, name))

/** `$app.findAllRecords(collection, ...exprs)`: every record matching all the expressions. */
export function findAllRecords(app: App, collection: unknown, exprs: unknown[]): PbRecord[] {
  const name = '$app.findAllRecords'
  const c = collectionOf(app, collection, name)
  const rows = syncReads(app, c, name).allSync(selectFrom(c, conditions(exprs, name)))
  return rows.map((row) => pbRecord(c, recordFromRow(c, row)))
}

/** `$app.countRecords(collection, ...exprs)`: how many records match all the expressions. */
export function countRecords(app: App, collection: unknown, exprs: unknown[]): number {
  const name = '$app.countRecords'
  const c = collectionOf(app, collection, name)
  const q = selectFrom(c, conditions(exprs, name), sql`COUNT(*) AS n`)
  const [row] = syncReads(app, c, name).allSync<{ n: unknown }>(q)
  return Number(row?.n ?? 0)
}

/** `$app.findFirstRecordByData(collection, key, value)`: a 404 when none matches. */
export function findFirstRecordByData(
  app: App,
  collection: unknown,
  key: unknown,
  v: unknown,
): PbRecord {
  const name = '$app.findFirstRecordByData'
  const c = collectionOf(app, collection, name)
  const where = sql`${col(key, name)} = ${value(v)}`
  const [row] = syncReads(app, c, name).allSync(sql`${selectFrom(c, [where])} LIMIT 1`)
  if (!row) throw notFound()
  return pbRecord(c, recordFromRow(c, row))
}
