/**
 * DDL for PostgreSQL collection tables, indexes and views, in the schema the connection's
 * `search_path` names. Index definitions are kept in `COMMENT ON INDEX` so `listIndexes`
 * reports exactly what `indexDefinition` computes (PostgreSQL's own `pg_get_indexdef` rewrites
 * expressions and casts).
 */
import type { ColumnSpec, IndexSpec, SchemaManager } from '../schema.js'
import { ident, join, raw, sql, type Sql } from '../sql.js'
import { indexNameOf, pgIndexSql, pgLiteral } from './index-sql.js'
import { postgresDialect } from './postgres-dialect.js'
import { postgresViewQuery } from './view-query.js'

function columnSql(col: ColumnSpec): Sql {
  if (col.primaryKey) return sql`${ident(col.name)} TEXT PRIMARY KEY NOT NULL`
  return sql`${ident(col.name)} ${raw(postgresDialect.columnDefinition(col.kind))}`
}

/** Relations of the current schema by name and kind (`r` table, `v` view, `i` index). */
const inSchema = (kinds: string[]) =>
  sql`SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind = ANY(${kinds}::"char"[])`

/** DDL for PostgreSQL collection tables, indexes and views. */
export const postgresSchema: SchemaManager = {
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
      sql`ALTER TABLE ${ident(table)} ADD COLUMN ${ident(tmp)} ${raw(postgresDialect.columnDefinition(kind))}`,
    )
    const col = ident(name)
    // From text: '' and NULL become [], anything else a one-item list. From JSON: the last item
    // of a list (PocketBase keeps the last), a scalar as its text, else ''.
    const value: Sql = toMulti
      ? sql`CASE WHEN ${col} IS NULL OR ${col} = '' THEN '[]'::jsonb ELSE jsonb_build_array(${col}) END`
      : sql`CASE WHEN jsonb_typeof(${col}) = 'array' THEN COALESCE(${col} ->> -1, '') ELSE COALESCE(${col} #>> '{}', '') END`
    await db.run(sql`UPDATE ${ident(table)} SET ${ident(tmp)} = ${value}`)
    await db.run(sql`ALTER TABLE ${ident(table)} DROP COLUMN ${col}`)
    await db.run(sql`ALTER TABLE ${ident(table)} RENAME COLUMN ${ident(tmp)} TO ${col}`)
  },
  async listIndexes(db, table) {
    // Primary keys and constraint-backed indexes are the table's own, never the collection's.
    const rows = await db.all<{ name: string; def: string | null; pgdef: string }>(
      sql`SELECT i.relname AS name, obj_description(i.oid, 'pg_class') AS def,
                 pg_get_indexdef(i.oid) AS pgdef
            FROM pg_index x
            JOIN pg_class i ON i.oid = x.indexrelid
           WHERE x.indrelid IN (${inSchema(['r'])} AND c.relname = ${table})
             AND NOT x.indisprimary
             AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.oid)`,
    )
    // A name past 63 bytes is cut by PostgreSQL: the full one is read back from the definition.
    return new Map(
      rows.map((r) => {
        const name = (r.def !== null ? indexNameOf(r.def) : null) ?? r.name
        return [name, r.def ?? r.pgdef]
      }),
    )
  },
  indexDefinition(table, index) {
    return pgIndexSql(table, index)
  },
  async createIndex(db, table, index: IndexSpec) {
    const definition = pgIndexSql(table, index)
    // The definition is built only from quoted identifiers of validated names and escaped
    // literals; COMMENT takes no parameters, so its text is an escaped literal.
    await db.run(raw(definition))
    await db.run(sql`COMMENT ON INDEX ${ident(index.name)} IS ${raw(pgLiteral(definition))}`)
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
  viewQuery: postgresViewQuery,
  async describeQuery(db, query) {
    return db.describe(raw(query))
  },
  async exists(db, name) {
    const row = await db.get(sql`${inSchema(['r', 'v', 'm', 'p'])} AND c.relname = ${name}`)
    return row !== undefined
  },
}
