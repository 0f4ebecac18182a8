/**
 * The SQLite dialect: `?` placeholders, JSON1 functions, LIKE (ASCII case-insensitive) and
 * `IS` for null-safe equality.
 */
import type { ColumnKind, Dialect } from '../dialect.js'
import { sqliteAppendOnly } from './append-only.js'
import { compileFragment, ident, join, param, quoteDoubled, raw, sql, type Sql } from '../sql.js'

const columnTypes: Readonly<Record<ColumnKind, string>> = {
  text: "TEXT DEFAULT '' NOT NULL",
  number: 'NUMERIC DEFAULT 0 NOT NULL',
  bool: 'BOOLEAN DEFAULT FALSE NOT NULL',
  json: 'JSON DEFAULT NULL',
  blob: 'BLOB DEFAULT NULL',
}

/**
 * Turns path segments into a SQLite JSON path: numbers are array indexes, strings object keys
 * (`['a', 0, 'b c']` → `$.a[0]."b c"`).
 */
export function sqliteJsonPath(path: readonly (string | number)[]): string {
  let out = '$'
  for (const seg of path) {
    if (typeof seg === 'number') {
      if (!Number.isInteger(seg) || seg < 0) throw new Error(`invalid JSON array index ${seg}`)
      out += `[${seg}]`
    } else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(seg)) {
      out += `.${seg}`
    } else {
      if (seg.includes('"')) throw new Error(`unsupported JSON key ${JSON.stringify(seg)}`)
      out += `."${seg}"`
    }
  }
  return out
}

/** SQLite has no boolean or undefined parameters: they become 1/0 and NULL. */
function toSqliteParam(value: unknown): unknown {
  if (value === undefined) return null
  if (typeof value === 'boolean') return value ? 1 : 0
  return value
}

/** The SQLite implementation of `Dialect`. */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
  appendOnly: sqliteAppendOnly,
  compile: (fragment) => compileFragment(fragment, () => '?', quoteDoubled, toSqliteParam),
  quoteIdent: quoteDoubled,
  columnDefinition: (kind) => columnTypes[kind],
  // NB: the path is always a bound parameter, never spliced into the SQL text.
  jsonExtract: (expr, path) => sql`json_extract(${expr}, ${param(sqliteJsonPath(path))})`,
  jsonAsText: (expr) => expr,
  jsonArrayLength: (expr) => sql`COALESCE(json_array_length(${expr}), 0)`,
  jsonEach: (expr, alias) => ({
    from: sql`json_each(${expr}) AS ${ident(alias)}`,
    value: sql`${ident(alias)}.${ident('value')}`,
  }),
  like: (left, right, negate) =>
    negate ? sql`${left} NOT LIKE ${right} ESCAPE '\\'` : sql`${left} LIKE ${right} ESCAPE '\\'`,
  isSame: (left, right, negate) =>
    negate ? sql`${left} IS NOT ${right}` : sql`${left} IS ${right}`,
  equalsIgnoreCase: (left, right) => sql`${left} = ${right} COLLATE NOCASE`,
  lower: (expr) => sql`LOWER(${expr})`,
  random: () => sql`RANDOM()`,
  rowid: (tableAlias) => sql`${ident(tableAlias)}.${ident('_rowid_')}`,
  castNumber: (value) => sql`CAST(${value.sql} AS NUMERIC)`,
  // NB: SQLite is the reference: it compares, converts and orders values itself.
  compareAsSqlite: (native) => native,
  sqliteText: (value) => value.sql,
  sortKeys: (value) => [value.sql],
  math: (fn, arg) => sql`${raw(fn)}(${arg})`,
  castText: (expr) => sql`CAST(${expr} AS TEXT)`,
  castColumn: (expr, kind) =>
    kind === 'text'
      ? sql`CAST(${expr} AS TEXT)`
      : kind === 'number'
        ? sql`CAST(${expr} AS NUMERIC)`
        : expr,
  typedNumber: (expr) => expr,
  sortDirection: (desc) => raw(desc ? 'DESC' : 'ASC'),
  strftime: (format: Sql, value: Sql, modifiers: readonly Sql[]) =>
    sql`strftime(${join([format, value, ...modifiers])})`,
}
