/**
 * The query builders of PocketBase's `app.db()` (ozzo-dbx's `Builder`) past `newQuery`:
 * `select(...cols)` (a `SelectQuery`: `from`, `where`/`andWhere`/`orWhere`, `join`/`innerJoin`/
 * `leftJoin`/`rightJoin`, `orderBy`/`andOrderBy`, `groupBy`/`andGroupBy`, `having`/`andHaving`/
 * `orHaving`, `distinct`, `limit`, `offset`, `bind`/`andBind`, `build()`, and `one`/`all`/
 * `column` at once), `insert(table, cols)`, `update(table, cols, where)`, `delete(table, where)`
 * and `upsert` (which PocketBase's SQLite builder refuses: `Upsert is not supported`). Every
 * statement is built through the `sql` template for the store's dialect: names quoted by it,
 * values bound, conditions `$dbx` expressions; a name holding `(`, `{{` or `[[` is the script
 * author's own SQL, as ozzo-dbx takes it (`COUNT(*)`, `[[col]]`).
 */
import { messages } from '../../../../core/errors.js'
import { compileFragment, ident, join, param, raw, sql, type Sql } from '../../../../store/sql.js'
import { authorText, built, isExpression, value, type BuildContext } from '../dbx-exp.js'
import { strict } from '../unsupported.js'
import { dbQuery, type DbRun, type Statement } from './db.js'

type Json = Record<string, unknown>

/** A name (table or column), each dotted part quoted; the author's SQL when it is one. */
function name(text: string, ctx: BuildContext, call: string): Sql {
  if (/\(|\{\{|\[\[|["`]/.test(text)) return authorText(text, {}, ctx, call)
  return join(
    text.split('.').map((p) => (p === '*' ? raw('*') : ident(p))),
    '.',
  )
}

/** A name with an optional alias (`name alias`, `name AS alias`). */
function aliased(text: string, ctx: BuildContext, call: string, aliasRe: RegExp): Sql {
  const m = aliasRe.exec(text)
  if (!m) return name(text.trim(), ctx, call)
  return sql`${name(m[1]!.trim(), ctx, call)} ${raw(call === 'from' ? '' : 'AS ')}${ident(m[2]!)}`
}

const COLUMN_ALIAS = /^(.*?\S)(?:\s+as\s+|\s+)([\w\-.]+)$/i
const TABLE_ALIAS = /^(.*?\S)(?:\s+as\s+|\s+)([^\s]+)$/i

/** A script's list of names: strings only, or a clear error naming the call. */
function names(list: unknown[], call: string): string[] {
  const flat = list.length === 1 && Array.isArray(list[0]) ? (list[0] as unknown[]) : list
  return flat.map((v) => {
    if (typeof v !== 'string' || v.trim() === '')
      throw new Error(messages.pbBadArgument({ name: call, expected: 'names (strings)' }))
    return v
  })
}

/** A condition argument: a `$dbx` expression, or none (`null`/`undefined`). */
function condition(v: unknown, call: string): unknown {
  if (v === null || v === undefined) return null
  if (!isExpression(v))
    throw new Error(messages.pbBadArgument({ name: call, expected: 'a $dbx expression' }))
  return v
}

/** `a AND b` / `a OR b` of two optional conditions, each in parentheses, as ozzo-dbx joins them. */
function both(op: 'AND' | 'OR', a: Sql | null, b: Sql | null): Sql | null {
  if (a === null) return b
  if (b === null) return a
  return sql`(${a}) ${raw(op)} (${b})`
}

/** A condition built from `parts` (each an expression joined to the ones before it). */
type Cond = { op: 'AND' | 'OR'; expr: unknown }[]

function buildCond(cond: Cond, ctx: BuildContext, call: string): Sql | null {
  let out: Sql | null = null
  for (const { op, expr } of cond) if (expr !== null) out = both(op, out, built(expr, call, ctx))
  return out
}

/** A non-negative count, or -1 for none (ozzo-dbx's `limit(-1)`). */
function count(v: unknown, call: string): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isInteger(n))
    throw new Error(messages.pbBadArgument({ name: call, expected: 'an integer' }))
  return n < 0 ? -1 : n
}

/** A statement whose `sql()` shows its text for the store's dialect with `{:pN}` markers. */
function statementOf(run: DbRun, build: (ctx: BuildContext) => Sql): Statement {
  const ctx = (params: Json): BuildContext => ({ dialect: run.tx.db.dialect, params })
  return {
    build: (params) => build(ctx(params)),
    text: (params) =>
      compileFragment(
        build(ctx(params)),
        (n) => `{:p${n - 1}}`,
        (s) => run.tx.db.dialect.quoteIdent(s),
        (v) => v,
      ).sql,
  }
}

/** The table of a write, or a clear error naming the call. */
function table(v: unknown, call: string): string {
  if (typeof v !== 'string' || v.trim() === '')
    throw new Error(messages.pbBadArgument({ name: call, expected: 'a table name' }))
  return v
}

/** The columns of a write: an object of column → value (keys sorted, as ozzo-dbx's). */
function columns(v: unknown, call: string): [string, unknown][] {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new Error(messages.pbBadArgument({ name: call, expected: 'an object of columns' }))
  return Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}

/** A `SelectQuery` (see the file's header). */
function selectQuery(run: DbRun, initial: string[]): object {
  const s = {
    cols: initial,
    distinct: false,
    from: [] as string[],
    joins: [] as { type: string; table: string; on: unknown }[],
    where: [] as Cond,
    groupBy: [] as string[],
    having: [] as Cond,
    orderBy: [] as string[],
    limit: -1,
    offset: -1,
    params: {} as Json,
  }
  const build = (ctx: BuildContext): Sql => {
    const cols = s.cols.length
      ? join(s.cols.map((c) => aliased(c, ctx, 'select', COLUMN_ALIAS)))
      : raw('*')
    let q = sql`SELECT ${raw(s.distinct ? 'DISTINCT ' : '')}${cols}`
    if (s.from.length)
      q = sql`${q} FROM ${join(s.from.map((t) => aliased(t, ctx, 'from', TABLE_ALIAS)))}`
    for (const j of s.joins) {
      const on = j.on === null ? null : built(j.on, 'join', ctx)
      const target = aliased(j.table, ctx, 'from', TABLE_ALIAS)
      q = sql`${q} ${raw(j.type)} ${target}${on === null ? raw('') : sql` ON ${on}`}`
    }
    const where = buildCond(s.where, ctx, 'where')
    if (where !== null) q = sql`${q} WHERE ${where}`
    if (s.groupBy.length)
      q = sql`${q} GROUP BY ${join(s.groupBy.map((c) => name(c, ctx, 'groupBy')))}`
    const having = buildCond(s.having, ctx, 'having')
    if (having !== null) q = sql`${q} HAVING ${having}`
    if (s.orderBy.length) {
      const items = s.orderBy.map((c) => {
        const m = /^(.*?)\s+(asc|desc)$/i.exec(c.trim())
        return m
          ? sql`${name(m[1]!, ctx, 'orderBy')} ${raw(m[2]!.toUpperCase())}`
          : name(c.trim(), ctx, 'orderBy')
      })
      q = sql`${q} ORDER BY ${join(items)}`
    }
    // ozzo-dbx's "no limit" with an offset: the largest integer both engines take as a limit
    if (s.limit >= 0 || s.offset > 0)
      q = sql`${q} LIMIT ${param(s.limit >= 0 ? s.limit : Number.MAX_SAFE_INTEGER)}`
    if (s.offset > 0) q = sql`${q} OFFSET ${param(s.offset)}`
    return q
  }
  /** A script's join type, one of SQL's (never its text as given), upper-cased. */
  const joinType = (type: unknown): string => {
    const t = typeof type === 'string' ? type.trim().replace(/\s+/g, ' ').toUpperCase() : ''
    if (t === '') return 'JOIN'
    if (!/^((INNER|CROSS|(LEFT|RIGHT|FULL)( OUTER)?) )?JOIN$/.test(t))
      throw new Error(
        messages.pbBadArgument({
          name: 'selectQuery.join',
          expected: 'a join type (INNER JOIN, LEFT JOIN, …)',
        }),
      )
    return t
  }
  const query = (): object => dbQuery(run, statementOf(run, build), s.params)
  const joinOf =
    (type: string, call: string) =>
    (t: unknown, on?: unknown): object => {
      s.joins.push({ type, table: table(t, call), on: condition(on, call) })
      return self
    }
  const self: object = strict('selectQuery', {
    select: (...c: unknown[]) => ((s.cols = names(c, 'select')), self),
    andSelect: (...c: unknown[]) => ((s.cols = [...s.cols, ...names(c, 'andSelect')]), self),
    distinct: (b?: unknown) => ((s.distinct = b !== false), self),
    from: (...t: unknown[]) => ((s.from = names(t, 'from')), self),
    where: (e: unknown) => ((s.where = [{ op: 'AND', expr: condition(e, 'where') }]), self),
    andWhere: (e: unknown) => (s.where.push({ op: 'AND', expr: condition(e, 'andWhere') }), self),
    orWhere: (e: unknown) => (s.where.push({ op: 'OR', expr: condition(e, 'orWhere') }), self),
    join: (type: unknown, t: unknown, on?: unknown) => joinOf(joinType(type), 'join')(t, on),
    innerJoin: joinOf('INNER JOIN', 'innerJoin'),
    leftJoin: joinOf('LEFT JOIN', 'leftJoin'),
    rightJoin: joinOf('RIGHT JOIN', 'rightJoin'),
    orderBy: (...c: unknown[]) => ((s.orderBy = names(c, 'orderBy')), self),
    andOrderBy: (...c: unknown[]) => (
      (s.orderBy = [...s.orderBy, ...names(c, 'andOrderBy')]),
      self
    ),
    groupBy: (...c: unknown[]) => ((s.groupBy = names(c, 'groupBy')), self),
    andGroupBy: (...c: unknown[]) => (
      (s.groupBy = [...s.groupBy, ...names(c, 'andGroupBy')]),
      self
    ),
    having: (e: unknown) => ((s.having = [{ op: 'AND', expr: condition(e, 'having') }]), self),
    andHaving: (e: unknown) => (
      s.having.push({ op: 'AND', expr: condition(e, 'andHaving') }),
      self
    ),
    orHaving: (e: unknown) => (s.having.push({ op: 'OR', expr: condition(e, 'orHaving') }), self),
    limit: (n: unknown) => ((s.limit = count(n, 'limit')), self),
    offset: (n: unknown) => ((s.offset = count(n, 'offset')), self),
    bind: (p: unknown) => ((s.params = { ...(p as Json) }), self),
    andBind: (p: unknown) => (Object.assign(s.params, p), self),
    build: query,
    one: (m: unknown) => (query() as { one(m: unknown): void }).one(m),
    all: (l: unknown) => (query() as { all(l: unknown): void }).all(l),
    column: (l: unknown) => (query() as { column(l: unknown): void }).column(l),
    row: (...a: unknown[]) => (query() as { row(...a: unknown[]): void }).row(...a),
  })
  return self
}

/** `select`, `insert`, `update`, `delete` and `upsert` of `app.db()`, over `run`. */
export function builders(run: DbRun): Record<string, (...a: unknown[]) => object> {
  const write = (build: (ctx: BuildContext) => Sql) => dbQuery(run, statementOf(run, build))
  const where = (e: unknown, ctx: BuildContext, call: string): Sql => {
    const cond = e === null || e === undefined ? null : built(condition(e, call), call, ctx)
    return cond === null ? raw('') : sql` WHERE ${cond}`
  }
  return {
    select: (...cols: unknown[]) => selectQuery(run, names(cols, 'select')),
    insert: (t: unknown, cols: unknown) => {
      const target = table(t, 'insert')
      const entries = columns(cols, 'insert')
      return write((ctx) => {
        const into = name(target, ctx, 'insert')
        if (entries.length === 0) return sql`INSERT INTO ${into} DEFAULT VALUES`
        const names = join(entries.map(([k]) => ident(k)))
        return sql`INSERT INTO ${into} (${names}) VALUES (${join(entries.map(([, v]) => value(v)))})`
      })
    },
    update: (t: unknown, cols: unknown, e?: unknown) => {
      const target = table(t, 'update')
      const entries = columns(cols, 'update')
      if (entries.length === 0)
        throw new Error(messages.pbBadArgument({ name: 'update', expected: 'columns to set' }))
      condition(e, 'update')
      return write((ctx) => {
        const set = join(entries.map(([k, v]) => sql`${ident(k)}=${value(v)}`))
        return sql`UPDATE ${name(target, ctx, 'update')} SET ${set}${where(e, ctx, 'update')}`
      })
    },
    delete: (t: unknown, e?: unknown) => {
      const target = table(t, 'delete')
      condition(e, 'delete')
      return write(
        (ctx) => sql`DELETE FROM ${name(target, ctx, 'delete')}${where(e, ctx, 'delete')}`,
      )
    },
    // PocketBase's SQLite builder has no upsert: its query's text is empty, executing it fails.
    upsert: () =>
      dbQuery(run, {
        build: () => {
          throw new Error('Upsert is not supported')
        },
        text: () => '',
      }),
  }
}
