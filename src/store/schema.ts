import { createHash } from 'node:crypto'
import type { Db, QueryColumn } from './db.js'
import type { ColumnKind } from './dialect.js'

/** A column of a collection table. */
export interface ColumnSpec {
  name: string
  kind: ColumnKind
  primaryKey?: boolean
}

/** Functions an index expression may call: deterministic, and common to the SQL engines. */
export const indexFunctions = [
  'lower',
  'upper',
  'length',
  'trim',
  'ltrim',
  'rtrim',
  'coalesce',
  'ifnull',
  'abs',
  'round',
  'substr',
  'json_extract',
] as const

/** A function of {@link indexFunctions}. */
export type IndexFunction = (typeof indexFunctions)[number]

/** Binary operators of index expressions. */
export type IndexBinaryOp =
  | 'OR'
  | 'AND'
  | '='
  | '!='
  | 'IS'
  | 'IS NOT'
  | 'LIKE'
  | 'NOT LIKE'
  | '<'
  | '<='
  | '>'
  | '>='
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '||'

/**
 * An expression inside an index (an expression column, or a partial index's `WHERE`), parsed and
 * checked by the collection layer and rendered by each dialect: no user text reaches the DDL.
 */
export type IndexExpr =
  | { kind: 'column'; name: string }
  | { kind: 'text'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'null' }
  | { kind: 'bool'; value: boolean }
  | { kind: 'not'; operand: IndexExpr }
  | { kind: 'negate'; operand: IndexExpr }
  | { kind: 'binary'; op: IndexBinaryOp; left: IndexExpr; right: IndexExpr }
  | { kind: 'in'; negate: boolean; left: IndexExpr; values: IndexExpr[] }
  | { kind: 'call'; fn: IndexFunction; args: IndexExpr[] }

/** One indexed term: a column or an expression, with its collation and order. */
export interface IndexColumn {
  expr: IndexExpr
  nocase?: boolean
  desc?: boolean
}

/** An index of a collection table, parsed and validated by the collection layer. */
export interface IndexSpec {
  name: string
  unique: boolean
  columns: IndexColumn[]
  /** A partial index's condition. */
  where?: IndexExpr
}

/** A plain column reference. */
export const indexColumn = (name: string): IndexExpr => ({ kind: 'column', name })

const precedence: Readonly<Record<IndexBinaryOp, number>> = {
  OR: 1,
  AND: 2,
  '=': 4,
  '!=': 4,
  IS: 4,
  'IS NOT': 4,
  LIKE: 4,
  'NOT LIKE': 4,
  '<': 5,
  '<=': 5,
  '>': 5,
  '>=': 5,
  '+': 6,
  '-': 6,
  '*': 7,
  '/': 7,
  '%': 7,
  '||': 8,
}

/** The binding strength of an expression's outermost operator (NOT is 3, IN 4, atoms 10). */
export function indexExprPrecedence(e: IndexExpr): number {
  if (e.kind === 'binary') return precedence[e.op]
  if (e.kind === 'not') return 3
  if (e.kind === 'in') return 4
  if (e.kind === 'negate') return 9
  return 10
}

/**
 * Renders an index expression as standard SQL text: identifiers through `quoteIdent`, string
 * literals with doubled quotes, parentheses only where precedence needs them.
 */
export function renderIndexExpr(e: IndexExpr, quoteIdent: (name: string) => string): string {
  const r = (x: IndexExpr): string => renderIndexExpr(x, quoteIdent)
  const wrap = (x: IndexExpr, min: number): string =>
    indexExprPrecedence(x) < min ? `(${r(x)})` : r(x)
  switch (e.kind) {
    case 'column':
      return quoteIdent(e.name)
    case 'text':
      return `'${e.value.replaceAll("'", "''")}'`
    case 'number':
      return String(e.value)
    case 'null':
      return 'NULL'
    case 'bool':
      return e.value ? 'TRUE' : 'FALSE'
    case 'not':
      return `NOT ${wrap(e.operand, 3)}`
    case 'negate':
      return `-${wrap(e.operand, 9)}`
    case 'binary': {
      const p = precedence[e.op]
      // Left-associative: an equal-precedence right operand keeps its parentheses.
      return `${wrap(e.left, p)} ${e.op} ${wrap(e.right, p + 1)}`
    }
    case 'in':
      return `${wrap(e.left, 5)} ${e.negate ? 'NOT IN' : 'IN'} (${e.values.map(r).join(', ')})`
    case 'call':
      return `${e.fn}(${e.args.map(r).join(', ')})`
  }
}

/** The prefix of every junction table (and of its triggers). */
export const JUNCTION_PREFIX = '_mv_'

/**
 * The junction table of a multi-valued relation or select field: `_mv_<collectionId>_<fieldId>`
 * (names come from ids, so renames keep it), or `_mv_<hash>` when that would pass 48 characters
 * (PostgreSQL cuts identifiers at 63 bytes, and triggers add a suffix).
 */
export function junctionTable(collectionId: string, fieldId: string): string {
  const name = `${JUNCTION_PREFIX}${collectionId}_${fieldId}`
  if (name.length <= 48 && /^\w+$/.test(name)) return name
  const hash = createHash('sha256').update(`${collectionId}\u0000${fieldId}`).digest('hex')
  return `${JUNCTION_PREFIX}${hash.slice(0, 32)}`
}

/**
 * A junction table kept by triggers on a collection table: one row `(value, record)` per
 * distinct non-NULL item of the JSON list in `column`, `value` exactly what
 * `Dialect.jsonEach(column).value` yields, keyed on `(value, record)`. Lets `?=` filters on
 * multi-valued fields use an index (`core/rules/junction.ts`).
 */
export interface JunctionSpec {
  /** The junction table's name (`junctionTable`). */
  name: string
  /** The collection table's column holding the JSON list. */
  column: string
}

/**
 * DDL for collection tables and views, per dialect. The collection layer computes what should
 * exist; this executes it. Every name is quoted by the dialect, never spliced raw.
 */
export interface SchemaManager {
  createTable(db: Db, table: string, columns: readonly ColumnSpec[]): Promise<void>
  dropTable(db: Db, table: string): Promise<void>
  renameTable(db: Db, from: string, to: string): Promise<void>
  addColumn(db: Db, table: string, column: ColumnSpec): Promise<void>
  renameColumn(db: Db, table: string, from: string, to: string): Promise<void>
  dropColumn(db: Db, table: string, name: string): Promise<void>
  /** Rewrites a column between a single value (text) and a JSON list, keeping its data. */
  convertColumn(db: Db, table: string, name: string, toMulti: boolean): Promise<void>
  /** Index names and their normalised definitions, for diffing. */
  listIndexes(db: Db, table: string): Promise<Map<string, string>>
  /** The normalised definition `listIndexes` would report for `index`. */
  indexDefinition(table: string, index: IndexSpec): string
  createIndex(db: Db, table: string, index: IndexSpec): Promise<void>
  dropIndex(db: Db, name: string): Promise<void>
  createView(db: Db, name: string, query: string): Promise<void>
  dropView(db: Db, name: string): Promise<void>
  /**
   * The view query in the form this engine runs. PocketBase's SQLite reads a double-quoted token
   * that names no column as a string literal (`SELECT id, "abc" AS kind …`); an engine that does
   * not gets such tokens rewritten as string literals. Returns the query unchanged when it already
   * runs; throws like `describeQuery` when it runs neither way.
   */
  viewQuery(db: Db, query: string): Promise<string>
  /** Checks a SELECT and describes its result columns without running it. */
  describeQuery(db: Db, query: string): Promise<QueryColumn[]>
  /** True when a table or view of that name exists. */
  exists(db: Db, name: string): Promise<boolean>
  /** The column names of an existing table (none when it does not exist). */
  columnNames(db: Db, table: string): Promise<string[]>
  /**
   * Makes the junction tables of `table` exactly `wanted`: missing ones are created and filled
   * from the rows, their triggers (re)created when missing or different, and junctions (with
   * their triggers) no longer wanted dropped. Does nothing when all is in place.
   */
  syncJunctions(db: Db, table: string, wanted: readonly JunctionSpec[]): Promise<void>
  /**
   * Drops the junction triggers of `table` (before columns are dropped, renamed or converted;
   * `syncJunctions` makes them again). With `tables`, drops the junction tables too.
   */
  dropJunctions(db: Db, table: string, tables: boolean): Promise<void>
}
