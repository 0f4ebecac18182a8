/** `Db.describe` on PostgreSQL: a query's result columns, planned but never run. */
import type pg from 'pg'
import type { QueryColumn } from '../db.js'
import type { Sql } from '../sql.js'
import { translatePgError, type PgDb } from './database.js'

/**
 * Describes a query's result columns without running it: planned inside a read-only
 * transaction with `LIMIT 0`, the columns' source tables and declared types read from the
 * catalog. Rolls back, so nothing it might do stays.
 */
export async function describeOn(
  db: PgDb,
  client: pg.PoolClient,
  query: Sql,
): Promise<QueryColumn[]> {
  const compiled = db.dialect.compile(query)
  const inner = compiled.sql.trim().replace(/;\s*$/, '')
  const savepoint = await client
    .query('SAVEPOINT svc_describe')
    .then(() => true)
    .catch(() => false)
  if (!savepoint) await client.query('BEGIN READ ONLY')
  try {
    const r = await client.query({
      text: `SELECT * FROM (${inner}) AS svc_described LIMIT 0`,
      values: compiled.params,
    })
    const out: QueryColumn[] = []
    for (const f of r.fields) {
      let table: string | null = null
      let column: string | null = null
      // NB: as SQLite's declared type, only a plain column of a table has one: an expression's
      // (a literal, a function) is null, so views type it as PocketBase does.
      let declaredType: string | null = null
      if (f.tableID) {
        const src = await client.query<{ relname: string; attname: string; type: string }>(
          `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type
             FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
            WHERE a.attrelid = $1 AND a.attnum = $2`,
          [f.tableID, f.columnID],
        )
        const s = src.rows[0]
        if (s) {
          table = s.relname
          column = s.attname
          declaredType = s.type
        }
      }
      out.push({ name: f.name, table, column, declaredType })
    }
    return out
  } catch (err) {
    throw translatePgError(err)
  } finally {
    if (savepoint) await client.query('ROLLBACK TO SAVEPOINT svc_describe').catch(() => {})
    else await client.query('ROLLBACK').catch(() => {})
  }
}
