/**
 * The core of PocketBase's `$dbx` expressions (ozzo-dbx's `Expression`), shared by `$dbx`
 * (`dbx.ts`), the finds that take them and the `app.db()` builders (`migrate/db.ts`,
 * `migrate/db-select.ts`): an expression builds its SQL through the `sql` template when the
 * statement is built, given the store's dialect (quoting, LIKE) and the statement's bound
 * parameters (`{:name}` of an `exp` may be bound by the query's `bind`, as in ozzo-dbx).
 */
import { messages } from '../../../core/errors.js'
import type { Dialect } from '../../../store/dialect.js'
import { ident, join, param, raw, type Sql } from '../../../store/sql.js'

/** What an expression is built with: the statement's dialect and its bound parameters. */
export interface BuildContext {
  dialect: Dialect
  params: Record<string, unknown>
}

/** The SQL of an expression (null: an empty expression, which adds no condition). */
const BUILD = Symbol('svcbase.dbxBuild')

export interface Expression {
  [BUILD]: (ctx: BuildContext) => Sql | null
}

/** An expression building its SQL with `build`. */
export const expression = (build: (ctx: BuildContext) => Sql | null): Expression => ({
  [BUILD]: build,
})

export const isExpression = (v: unknown): v is Expression =>
  typeof v === 'object' && v !== null && BUILD in v

/** An expression argument's SQL, or a clear error naming the call. */
export function built(v: unknown, name: string, ctx: BuildContext): Sql | null {
  if (!isExpression(v))
    throw new Error(messages.pbBadArgument({ name, expected: 'a $dbx expression' }))
  return v[BUILD](ctx)
}

/** A column name as ozzo-dbx quotes it: each dotted part quoted. */
export function col(name: unknown, call: string): Sql {
  if (typeof name !== 'string' || name === '')
    throw new Error(messages.pbBadArgument({ name: call, expected: 'a column name' }))
  return join(name.split('.').map(ident), '.')
}

/** A value as a bound parameter (objects as their JSON). */
export const value = (v: unknown): Sql =>
  param(typeof v === 'object' && v !== null ? JSON.stringify(v) : v)

/**
 * SQL text written by the script's author (`$dbx.exp`, a builder's raw column): `{:name}` bound
 * from `params` (then the statement's), `[[col]]` and `{{table}}` quoted, the rest as written.
 */
export function authorText(
  text: string,
  params: Record<string, unknown>,
  ctx: BuildContext,
  call: string,
): Sql {
  const parts: Sql[] = []
  let last = 0
  for (const m of text.matchAll(/\{:(\w+)\}|\[\[([\w.]+)\]\]|\{\{([\w.]+)\}\}/g)) {
    parts.push(raw(text.slice(last, m.index)))
    if (m[1] !== undefined) {
      const from = m[1] in params ? params : ctx.params
      if (!(m[1] in from))
        throw new Error(messages.pbBadArgument({ name: `{:${m[1]}}`, expected: 'a bound value' }))
      parts.push(value(from[m[1]]))
    } else parts.push(col(m[2] ?? m[3], call))
    last = m.index + m[0].length
  }
  parts.push(raw(text.slice(last)))
  return join(parts, '')
}
