import { renderIndexExpr, type ColumnSpec, type IndexSpec, type SchemaManager } from '../schema.js'
import { dropSqliteJunctions, syncSqliteJunctions } from './junctions.js'
import { ident, join, raw, sql, type Sql } from '../sql.js'
import { sqliteDialect } from './sqlite-dialect.js'
import { sqliteViewQuery } from './view-query.js'

const q = (name: string): string => sqliteDialect.quoteIdent(name)

function columnSql(col: ColumnSpec): Sql {
  if (col.primaryKey) return sql`${ident(col.name)} TEXT PRIMARY KEY NOT NULL`
  return sql`${ident(col.name)} ${raw(sqliteDialect.columnDefinition(col.kind))}`
}

function indexSql(table: string, index: IndexSpec): string {
  const cols = index.columns
    .map((c) => {
      const term = renderIndexExpr(c.expr, q)
      // An expression term is parenthesised, so COLLATE applies to the whole of it.
      const body = c.expr.kind === 'column' || c.expr.kind === 'call' ? term : `(${term})`
      return `${body}${c.nocase ? ' COLLATE NOCASE' : ''}${c.desc ? ' DESC' : ''}`
    })
    .join(', ')
  const where = index.where ? ` WHERE ${renderIndexExpr(index.where, q)}` : ''
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${q(index.name)} ON ${q(table)} (${cols})${where}`
}

/** DDL for SQLite collection tables, indexes and views. */
export const sqliteSchema: SchemaManager = {
  async createTable(db, table, columns) {
    await db.run(sql`CREATE TABLE ${ident(table)} (${join(columns.map(columnSql))})`)
  },
  async dropTable(db, table) {
    await db.run(sql`DROP TABLE IF EXISTS ${ident(table)}`)
  },
  async renameTable(db, from, to) {
    await db.run(sql`ALTER TABLE ${ident(from)} RENAME TO ${ident(to)}`)
  },
  async addColumn(db, table, column) {
    await db.run(sql`ALTER TABLE ${ident(table)} ADD COLUMN ${columnSql(column)}`)
  },
  async renameColumn(db, table, from, to) {
    await db.run(sql`ALTER TABLE ${ident(table)} RENAME COLUMN ${ident(from)} TO ${ident(to)}`)
  },
  async dropColumn(db, table, name) {
    await db.run(sql`ALTER TABLE ${ident(table)} DROP COLUMN ${ident(name)}`)
  },
  async convertColumn(db, table, name, toMulti) {
    const tmp = `${name}__svc_tmp`
    const kind = toMulti ? 'json' : 'text'
    await db.run(
      sql`ALTER TABLE ${ident(table)} ADD COLUMN ${ident(tmp)} ${raw(sqliteDialect.columnDefinition(kind))}`,
    )
    const col = ident(name)
    const value: Sql = toMulti
      ? sql`CASE WHEN ${col} IS NULL OR ${col} = '' THEN '[]' ELSE json_array(${col}) END`
      : sql`CASE WHEN json_valid(${col}) AND json_type(${col}) = 'array' THEN COALESCE(json_extract(${col}, '$[#-1]'), '') ELSE COALESCE(${col}, '') END`
    await db.run(sql`UPDATE ${ident(table)} SET ${ident(tmp)} = ${value}`)
    await db.run(sql`ALTER TABLE ${ident(table)} DROP COLUMN ${col}`)
    await db.run(sql`ALTER TABLE ${ident(table)} RENAME COLUMN ${ident(tmp)} TO ${col}`)
  },
  async listIndexes(db, table) {
    const rows = await db.all<{ name: string; sql: string | null }>(
      sql`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table}`,
    )
    return new Map(rows.filter((r) => r.sql !== null).map((r) => [r.name, r.sql ?? '']))
  },
  indexDefinition(table, index) {
    return indexSql(table, index)
  },
  async createIndex(db, table, index) {
    // The definition is built only from quoted identifiers of validated names.
    await db.run(raw(indexSql(table, index)))
  },
  async dropIndex(db, name) {
    await db.run(sql`DROP INDEX IF EXISTS ${ident(name)}`)
  },
  async createView(db, name, query) {
    // NB: the query is a superuser-authored SELECT already checked by describeQuery.
    await db.run(sql`CREATE VIEW ${ident(name)} AS ${raw(query)}`)
  },
  async dropView(db, name) {
    await db.run(sql`DROP VIEW IF EXISTS ${ident(name)}`)
  },
  viewQuery: sqliteViewQuery,
  async describeQuery(db, query) {
    return db.describe(raw(query))
  },
  async exists(db, name) {
    const row = await db.get(
      sql`SELECT 1 AS found FROM sqlite_master WHERE type IN ('table', 'view') AND name = ${name}`,
    )
    return row !== undefined
  },
  async columnNames(db, table) {
    const rows = await db.all<{ name: string }>(sql`SELECT name FROM pragma_table_info(${table})`)
    return rows.map((r) => r.name)
  },
  syncJunctions: syncSqliteJunctions,
  dropJunctions: dropSqliteJunctions,
}
