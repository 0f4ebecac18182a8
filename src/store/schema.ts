import type { Db, QueryColumn } from './db.js'
import type { ColumnKind } from './dialect.js'

/** A column of a collection table. */
export interface ColumnSpec {
  name: string
  kind: ColumnKind
  primaryKey?: boolean
}

/** One indexed column. */
export interface IndexColumn {
  name: string
  nocase?: boolean
  desc?: boolean
}

/** An index of a collection table, parsed and validated by the collection layer. */
export interface IndexSpec {
  name: string
  unique: boolean
  columns: IndexColumn[]
  /** For unique indexes on text columns: ignore empty values (`WHERE col != ''`). */
  skipEmpty?: string
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
  /** Checks a SELECT and describes its result columns without running it. */
  describeQuery(db: Db, query: string): Promise<QueryColumn[]>
  /** True when a table or view of that name exists. */
  exists(db: Db, name: string): Promise<boolean>
}
