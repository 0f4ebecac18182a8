/**
 * The PostgreSQL dialect: `$n` placeholders, JSON operators, ILIKE and `IS [NOT] DISTINCT FROM`.
 * JSON columns are `JSON`, not `JSONB`: PostgreSQL keeps their text as written (key order,
 * duplicate keys), so a record reads back byte for byte as on SQLite, and `CAST(col AS TEXT)`
 * is the stored text. JSON values are read with `#>>` (as text).
 */
import type { ColumnKind, Dialect } from '../dialect.js'
import { postgresAppendOnly } from './append-only.js'
import { compareAsSqlite, jsonSortKeys, sqliteNumber, sqliteText } from './sqlite-order.js'
import { postgresStrftime } from './strftime.js'
import { compileFragment, ident, param, quoteDoubled, raw, sql, type Sql } from '../sql.js'

const columnTypes: Readonly<Record<ColumnKind, string>> = {
  text: "TEXT DEFAULT '' NOT NULL",
  number: 'DOUBLE PRECISION DEFAULT 0 NOT NULL',
  bool: 'BOOLEAN DEFAULT FALSE NOT NULL',
  json: 'JSON DEFAULT NULL',
  blob: 'BYTEA DEFAULT NULL',
}

/** The bare type of each storage class, for casts. */
const castTypes: Readonly<Record<ColumnKind, string>> = {
  text: 'TEXT',
  number: 'DOUBLE PRECISION',
  bool: 'BOOLEAN',
  json: 'JSON',
  blob: 'BYTEA',
}

/** `expr` when it holds a JSON array, else an empty one (json array functions reject others). */
function arrayOrEmpty(expr: Sql): Sql {
  return sql`CASE WHEN json_typeof(${expr}) = 'array' THEN ${expr} ELSE '[]'::json END`
}

export { STRFTIME_TIME } from './strftime.js'

/** The PostgreSQL implementation of `Dialect`. */
export const postgresDialect: Dialect = {
  name: 'postgres',
  compile: (fragment) =>
    compileFragment(
      fragment,
      (n) => `$${n}`,
      quoteDoubled,
      (v) => (v === undefined ? null : v),
    ),
  quoteIdent: quoteDoubled,
  columnDefinition: (kind) => columnTypes[kind],
  // NB: the path is always a bound text[] parameter, never spliced into the SQL text.
  jsonExtract: (expr, path) => sql`(${expr} #>> ${param(path.map(String))}::text[])`,
  jsonAsText: (expr) => sql`CAST(${expr} AS TEXT)`,
  jsonArrayLength: (expr) => sql`json_array_length(${arrayOrEmpty(expr)})`,
  jsonEach: (expr, alias) => ({
    from: sql`json_array_elements_text(${arrayOrEmpty(expr)}) AS ${ident(alias)}(${ident('value')})`,
    value: sql`${ident(alias)}.${ident('value')}`,
  }),
  like: (left, right, negate) =>
    negate
      ? sql`CAST(${left} AS TEXT) NOT ILIKE ${right} ESCAPE '\\'`
      : sql`CAST(${left} AS TEXT) ILIKE ${right} ESCAPE '\\'`,
  isSame: (left, right, negate) =>
    negate ? sql`${left} IS DISTINCT FROM ${right}` : sql`${left} IS NOT DISTINCT FROM ${right}`,
  equalsIgnoreCase: (left, right) => sql`LOWER(${left}) = LOWER(${right})`,
  lower: (expr) => sql`LOWER(${expr})`,
  random: () => sql`RANDOM()`,
  // NB: collection tables get a `_rowid_` identity column (postgres/schema.ts): insertion order.
  rowid: (tableAlias) => sql`${ident(tableAlias)}.${ident('_rowid_')}`,
  castNumber: sqliteNumber,
  compareAsSqlite: (_native, left, op, right) => compareAsSqlite(left, op, right),
  sqliteText,
  sortKeys: (value) => (value.kind === 'json' ? jsonSortKeys(value) : [value.sql]),
  // NB: the argument is written once (a derived value), not once per test of its domain.
  math: (fn, arg) => {
    const inDomain = fn === 'ASIN' ? raw('"v" BETWEEN -1 AND 1') : raw('"v" >= 0')
    return sql`(SELECT CASE WHEN ${inDomain} THEN ${raw(fn)}("v") END FROM (SELECT ${arg} AS "v" OFFSET 0) AS "m")`
  },
  castText: (expr) => sql`CAST(${expr} AS TEXT)`,
  castColumn: (expr, kind) => sql`CAST(${expr} AS ${raw(castTypes[kind])})`,
  typedNumber: (expr) => sql`CAST(${expr} AS DOUBLE PRECISION)`,
  sortDirection: (desc) => raw(desc ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'),
  strftime: (format, value, modifiers) => {
    const text = (f: Sql): string => {
      const only = f.parts.length === 1 ? f.parts[0] : undefined
      if (!only || !('param' in only) || typeof only.param !== 'string') {
        throw new Error('strftime needs a literal format and modifiers on PostgreSQL')
      }
      return only.param
    }
    return postgresStrftime(text(format), value, modifiers.map(text))
  },
  appendOnly: postgresAppendOnly,
}
