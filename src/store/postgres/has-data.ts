/** Whether a PostgreSQL schema holds svcbase's data, read without creating anything. */
import pg from 'pg'
import { DbError } from '../db.js'
import { quoteSchema } from './database.js'

/**
 * True when the main schema `schema` of the database at `url` holds svcbase's `_collections`
 * table. Reads the catalogue only: no schema or table is created (unlike the store's `open`).
 */
export async function postgresHasData(url: string, schema: string): Promise<boolean> {
  quoteSchema(schema)
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  try {
    await client.connect()
    const r = await client.query<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = '_collections' AND c.relkind = 'r') AS found`,
      [schema],
    )
    return r.rows[0]?.found === true
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    throw new DbError(`cannot open the PostgreSQL database: ${message}`, err)
  } finally {
    await client.end().catch(() => {})
  }
}
