/**
 * PocketBase's `$dbx` expressions for `*.pb.js` scripts (ozzo-dbx's `Expression`s): `exp`,
 * `hashExp`, `and`, `or`, `not`, `in`, `notIn`, `like`, `notLike`, `orLike`, `orNotLike`,
 * `between`, `notBetween`, `exists`, `notExists`, as values for the `$app` calls that take them
 * (`findAllRecords`, `countRecords`, below) and the `app.db()` builders. Each builds
 * parameterised SQL through the `sql` template (`dbx-exp.ts`): values are always bound, column
 * names quoted by the store's dialect, and the text of `exp` is the script author's own
 * (PocketBase's, written for SQLite), with `{:name}` placeholders bound from its params,
 * `[[name]]` a quoted column and `{{name}}` a quoted table.
 */
import type { App } from '../../../core/app.js'
import type { Collection } from '../../../core/collections/model.js'
import { messages, notFound } from '../../../core/errors.js'
import { selectFrom } from '../../../core/records/query.js'
import { recordFromRow } from '../../../core/records/serialize.js'
import type { Db } from '../../../store/db.js'
import { join, raw, sql, type Sql } from '../../../store/sql.js'
import {
  authorText,
  built,
  col,
  expression,
  isExpression,
  value,
  type BuildContext,
  type Expression,
} from './dbx-exp.js'
import { collectionOf } from './find.js'
import { pbRecord, type PbRecord } from './record.js'
import { PbUnsupportedError, strict } from './unsupported.js'

/** Conditions joined by `op`, each in parentheses (empty ones left out). */
function combine(op: 'AND' | 'OR', items: readonly unknown[], name: string): Expression {
  return expression((ctx) => {
    const parts = items.map((e) => built(e, name, ctx)).filter((s): s is Sql => s !== null)
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
 * `joiner`, and no `ESCAPE` clause, as PocketBase builds it; SQLite then reads that pattern with
 * no escape character at all (a backslash is a plain character, `_` and `%` stay wildcards, so
 * `like('name', '_')` matches a backslash followed by any character) and case-insensitively.
 * Both engines answer so here: the pattern goes to the dialect's case-insensitive LIKE (escape
 * `\\`) with each backslash doubled, which reads exactly as SQLite reads it without an escape.
 * `match(left, right)` and `escape(...pairs)` change the `%` sides and the escaping pairs.
 */
function likeExp(
  op: 'LIKE' | 'NOT LIKE',
  joiner: 'AND' | 'OR',
  column: unknown,
  values: unknown[],
  name: string,
  opts: { left: boolean; right: boolean; escape: string[] } = {
    left: true,
    right: true,
    escape: ['\\', '\\\\', '%', '\\%', '_', '\\_'],
  },
): Expression {
  const exp = expression(({ dialect }) => {
    const c = col(column, name)
    if (values.length === 0) return null
    const parts = values.map((v) => {
      // ozzo-dbx's `Escape` pairs, each replaced in turn; then `%` on the sides `Match` keeps
      let pattern = String(v)
      for (let i = 0; i + 1 < opts.escape.length; i += 2)
        pattern = pattern.replaceAll(opts.escape[i]!, opts.escape[i + 1]!)
      pattern = `${opts.left ? '%' : ''}${pattern}${opts.right ? '%' : ''}`
      return dialect.like(c, value(pattern.replaceAll('\\', '\\\\')), op === 'NOT LIKE')
    })
    return join(parts, ` ${joiner} `)
  })
  // LikeExp's `match(left, right)` and `escape(...pairs)`: a new expression, as Go's copies
  return Object.assign(exp, {
    match: (left: unknown, right: unknown) =>
      likeExp(op, joiner, column, values, name, { ...opts, left: !!left, right: !!right }),
    escape: (...pairs: unknown[]) => {
      if (pairs.length % 2 !== 0 || pairs.some((p) => typeof p !== 'string'))
        throw new Error(
          messages.pbBadArgument({ name: `${name}().escape`, expected: 'pairs of strings' }),
        )
      return likeExp(op, joiner, column, values, name, { ...opts, escape: pairs as string[] })
    },
  })
}

/** PocketBase's `$dbx`. */
export function dbxGlobal(): object {
  return strict('$dbx', {
    exp: (text: unknown, params?: unknown) => {
      const t = typeof text === 'string' ? text : ''
      const p = params && typeof params === 'object' ? (params as Record<string, unknown>) : {}
      return expression((ctx) => (t.trim() === '' ? null : authorText(t, p, ctx, '$dbx.exp')))
    },
    hashExp: (map: unknown) =>
      expression((ctx) => {
        const entries = map && typeof map === 'object' ? Object.entries(map) : []
        if (entries.length === 0) return null
        const parts = entries
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, v]) => {
            const c = col(k, '$dbx.hashExp')
            if (v === null || v === undefined) return sql`${c} IS NULL`
            if (Array.isArray(v))
              return built(inExp(false, k, v, '$dbx.hashExp'), '$dbx.hashExp', ctx)!
            if (isExpression(v)) return built(v, '$dbx.hashExp', ctx) ?? raw('1=1')
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
      expression((ctx) => {
        const s = built(e, '$dbx.not', ctx)
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
      expression((ctx) => {
        const s = built(e, '$dbx.exists', ctx)
        return s === null ? raw('0=1') : sql`EXISTS (${s})`
      }),
    notExists: (e: unknown) =>
      expression((ctx) => {
        const s = built(e, '$dbx.notExists', ctx)
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

/**
 * The WHERE conditions of the expressions a find was given. An empty one (`hashExp({})`,
 * `and()`, `exp('')`) fails, as PocketBase's find builds `WHERE ()` of it, a syntax error.
 */
function conditions(app: App, c: Collection, exprs: unknown[], name: string): Sql[] {
  const ctx: BuildContext = { dialect: app.dbFor(c).dialect, params: {} }
  return exprs.map((e) => {
    const s = built(e, name, ctx)
    if (s === null)
      throw new Error(messages.pbBadArgument({ name, expected: 'non-empty $dbx expressions' }))
    return s
  })
}

/** `$app.findAllRecords(collection, ...exprs)`: every record matching all the expressions. */
export function findAllRecords(app: App, collection: unknown, exprs: unknown[]): PbRecord[] {
  const name = '$app.findAllRecords'
  const c = collectionOf(app, collection, name)
  const rows = syncReads(app, c, name).allSync(selectFrom(c, conditions(app, c, exprs, name)))
  return rows.map((row) => pbRecord(c, recordFromRow(c, row)))
}

/** `$app.countRecords(collection, ...exprs)`: how many records match all the expressions. */
export function countRecords(app: App, collection: unknown, exprs: unknown[]): number {
  const name = '$app.countRecords'
  const c = collectionOf(app, collection, name)
  const q = selectFrom(c, conditions(app, c, exprs, name), sql`COUNT(*) AS n`)
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
