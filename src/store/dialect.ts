import type { Db } from './db.js'
import type { CompiledQuery, Sql } from './sql.js'

/**
 * The storage classes a field type can ask for; each dialect maps them to a column type. `blob`
 * holds raw bytes (vectors as little-endian float32).
 */
export type ColumnKind = 'text' | 'number' | 'bool' | 'json' | 'blob'

/**
 * What a value is on SQLite, the reference engine, so another engine can compare values of
 * different kinds as SQLite does. `integer`: whole numbers (counts, lengths); `real`: bound
 * numbers and computed decimals (`5` reads as `5.0` as text); `numeric`: a number column (whole
 * values are integers); `bool`: 1/0 on SQLite; `json`: a value read from a JSON document, of the
 * kind the document gives it.
 */
export type SqliteKind = 'text' | 'integer' | 'real' | 'numeric' | 'bool' | 'json'

/** An expression with its SQLite kind and affinity (see `Dialect.compareAsSqlite`). */
export interface SqliteValue {
  readonly sql: Sql
  readonly kind: SqliteKind
  /**
   * The expression's affinity on SQLite: a column's (`numeric` for number, bool and JSON
   * columns, `text` for the others), null for computed values and bound constants.
   */
  readonly affinity: 'numeric' | 'text' | null
  /** For `json`: the document and the path read in it (empty: the whole document, a column). */
  readonly json?: { readonly doc: Sql; readonly path: readonly (string | number)[] }
}

/** The comparisons `compareAsSqlite` takes (`IS`: NULL-safe equality). */
export type SqliteComparison = '=' | 'IS' | 'IS NOT' | '<' | '<=' | '>' | '>='

/**
 * Everything that differs between SQL engines, behind one contract. Code outside `store/` asks
 * the dialect for a capability and never branches on its name. *(Kysely's DialectAdapter.)*
 */
export interface Dialect {
  /** A short name for logs and tests only (`sqlite`, `postgres`). */
  readonly name: string
  /** Turns a fragment into SQL text with this dialect's placeholders and quoting. */
  compile(fragment: Sql): CompiledQuery
  /** Quotes one identifier. */
  quoteIdent(name: string): string
  /** The column type for a storage class, with its NOT NULL/default clause. */
  columnDefinition(kind: ColumnKind): string
  /** A JSON value at `path` inside a JSON text expression, as a scalar SQL value. */
  jsonExtract(expr: Sql, path: readonly (string | number)[]): Sql
  /**
   * A JSON column's whole value as text, for comparing it with text (PocketBase compares a
   * multi-valued field without `:each` as its JSON text). SQLite stores JSON as text already;
   * PostgreSQL's `JSON` column is cast to its text, kept as written.
   */
  jsonAsText(expr: Sql): Sql
  /** The length of a JSON array expression (0 for non-arrays and NULL). */
  jsonArrayLength(expr: Sql): Sql
  /**
   * A table source expanding a JSON array into rows, for "every"/"any" semantics over
   * multi-valued fields: `from` goes into a FROM clause, `value` names each item.
   */
  jsonEach(expr: Sql, alias: string): { from: Sql; value: Sql }
  /** Case-insensitive LIKE with `\` as the escape character. */
  like(left: Sql, right: Sql, negate: boolean): Sql
  /** Null-safe equality (`IS` / `IS NOT DISTINCT FROM`) or its negation. */
  isSame(left: Sql, right: Sql, negate: boolean): Sql
  /** Case-insensitive text equality that can use a case-insensitive index on `left`. */
  equalsIgnoreCase(left: Sql, right: Sql): Sql
  /** Lower-cases a text expression. */
  lower(expr: Sql): Sql
  /** A random ordering key. */
  random(): Sql
  /** The physical row order column of a table alias, if the engine has one. */
  rowid(tableAlias: string): Sql | null
  /**
   * A value read as a number the way SQLite's `CAST(x AS NUMERIC)` reads it: text by its leading
   * number (0 when it has none), a bool as 1/0, NULL stays NULL.
   */
  castNumber(value: SqliteValue): Sql
  /**
   * `native` (the comparison as SQLite runs it, `left op right`) for operands of different
   * kinds: SQLite applies its affinities (a number or bool column reads text that looks like a
   * number as that number; a text column reads a number as its text), then orders NULL, numbers,
   * text. SQLite returns `native`; a strictly typed engine builds the same decision.
   */
  compareAsSqlite(native: Sql, left: SqliteValue, op: SqliteComparison, right: SqliteValue): Sql
  /** The text SQLite reads a value as (LIKE, text affinity): `1.0` for a real 1, `1` for a bool. */
  sqliteText(value: SqliteValue): Sql
  /**
   * The ORDER BY keys that order a value as SQLite orders it (NULL, numbers, then text): one key
   * on SQLite; on a typed engine, the JSON kinds made explicit.
   */
  sortKeys(value: SqliteValue): Sql[]
  /** `ASIN` or `SQRT` as SQLite has them: NULL outside their domain, never an error. */
  math(fn: 'ASIN' | 'SQRT', arg: Sql): Sql
  /** Casts an expression to text. */
  castText(expr: Sql): Sql
  /**
   * A bound value typed as a column of `kind` holds it, so expressions read it as they read the
   * column (a record's values standing in for its row). SQLite casts text and numbers only (for
   * their affinity); PostgreSQL types every kind.
   */
  castColumn(expr: Sql, kind: ColumnKind): Sql
  /**
   * A bound number compared with another bound value, or a count, typed as a decimal number:
   * SQLite keeps the value's own type; PostgreSQL would infer text for two parameters, and an
   * integer for a parameter next to a count (refusing `1.5`), so it casts.
   */
  typedNumber(expr: Sql): Sql
  /**
   * The direction of an ORDER BY term, NULLs first when ascending and last when descending on
   * every engine (SQLite's order; PostgreSQL's default is the opposite).
   */
  sortDirection(desc: boolean): Sql
  /** Calls the engine's strftime-like formatting on a date text value. */
  strftime(format: Sql, value: Sql, modifiers: readonly Sql[]): Sql
  /** Append-only tables guarded by the engine itself (the audit log), when the engine has them. */
  readonly appendOnly?: AppendOnlyTables
}

/**
 * Append-only tables: the engine refuses every UPDATE and DELETE of their rows on every
 * connection (the SQL console included), except the retention prune below.
 */
export interface AppendOnlyTables {
  /** The idempotent DDL that guards `table` (which must exist and have a `created` column). */
  guard(table: string): Sql[]
  /** Deletes the rows of `table` created before `before` (a stored date text); returns how many. */
  prune(db: Db, table: string, before: string): Promise<number>
}
