/**
 * The PostgreSQL dialect: `$n` placeholders, JSON operators, ILIKE and `IS [NOT] DISTINCT FROM`.
 * JSON columns are `JSON`, not `JSONB`: PostgreSQL keeps their text as written (key order,
 * duplicate keys), so a record reads back byte for byte as on SQLite, and `CAST(col AS TEXT)`
 * is the stored text. JSON values are read with `#>>` (as text).
 */
import type { ColumnKind, Dialect } from '../dialect.js'
import { postgresAppendOnly } from './append-only.js'
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

/** SQLite strftime codes and their `to_char` equivalents; others are rejected. */
const strftimeCodes: Readonly<Record<string, string>> = {
  d: 'DD',
  f: 'SS.MS',
  H: 'HH24',
  j: 'DDD',
  m: 'MM',
  M: 'MI',
  S: 'SS',
  Y: 'YYYY',
}

/**
 * Translates a SQLite strftime format into a `to_char` pattern; literal text is double-quoted
 * so `to_char` copies it. Throws on codes that have no equivalent (`%s`, `%w`, `%W`, `%J`).
 */
export function toCharPattern(format: string): string {
  let out = ''
  let literal = ''
  const flush = () => {
    if (literal !== '') out += `"${literal.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
    literal = ''
  }
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!
    if (c !== '%') {
      literal += c
      continue
    }
    const code = format[++i] ?? ''
    if (code === '%') {
      literal += '%'
      continue
    }
    const mapped = strftimeCodes[code]
    if (mapped === undefined)
      throw new Error(`strftime code %${code} is not supported on PostgreSQL`)
    flush()
    out += mapped
  }
  flush()
  return out
}

/**
 * The time values `strftime` reads on PostgreSQL: `now` and SQLite's date forms (`YYYY-MM-DD`,
 * then optionally ` HH:MM[:SS[.fff]]` or with `T`, then optionally `Z` or `±HH:MM`), fields in
 * range. Any other value (a name, a number, '') gives NULL, as SQLite's strftime does, instead
 * of a cast error. Bound as a parameter; non-capturing groups only, so `substring` returns the
 * whole match.
 */
export const STRFTIME_TIME =
  '^(?:[nN][oO][wW]|\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])' +
  '(?:[ T](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d+)?)?)?' +
  '(?:[zZ]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)?)$'

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
  castNumber: (expr) => sql`CAST(${expr} AS DOUBLE PRECISION)`,
  castText: (expr) => sql`CAST(${expr} AS TEXT)`,
  castColumn: (expr, kind) => sql`CAST(${expr} AS ${raw(castTypes[kind])})`,
  typedNumber: (expr) => sql`CAST(${expr} AS DOUBLE PRECISION)`,
  sortDirection: (desc) => raw(desc ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'),
  strftime: (format, value, modifiers) => {
    const only = format.parts.length === 1 ? format.parts[0] : undefined
    if (!only || !('param' in only) || typeof only.param !== 'string') {
      throw new Error('strftime needs a literal format on PostgreSQL')
    }
    if (modifiers.length > 0) throw new Error('strftime modifiers are not supported on PostgreSQL')
    const text = sql`substring(CAST(${value} AS TEXT) from ${param(STRFTIME_TIME)})`
    const time = sql`CAST(${text} AS TIMESTAMPTZ) AT TIME ZONE 'UTC'`
    return sql`to_char(${time}, ${param(toCharPattern(only.param))})`
  },
  appendOnly: postgresAppendOnly,
}
