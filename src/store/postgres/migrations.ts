import type pg from 'pg'
import type { PgDb } from './database.js'

/**
 * The system tables of the main schema, created idempotently at start: SQLite's
 * (`sqlite/migrations.ts`) with PostgreSQL types (JSON as `JSON`, which keeps the text as written, BOOLEAN) and the
 * case-insensitive unique name index as `lower("name")`.
 */
const SYSTEM_TABLES = [
  `CREATE TABLE IF NOT EXISTS "_collections" (
  "id"         TEXT PRIMARY KEY NOT NULL,
  "name"       TEXT NOT NULL,
  "type"       TEXT NOT NULL,
  "system"     BOOLEAN DEFAULT FALSE NOT NULL,
  "fields"     JSON DEFAULT '[]' NOT NULL,
  "indexes"    JSON DEFAULT '[]' NOT NULL,
  "listRule"   TEXT DEFAULT NULL,
  "viewRule"   TEXT DEFAULT NULL,
  "createRule" TEXT DEFAULT NULL,
  "updateRule" TEXT DEFAULT NULL,
  "deleteRule" TEXT DEFAULT NULL,
  "options"    JSON DEFAULT '{}' NOT NULL,
  "created"    TEXT DEFAULT '' NOT NULL,
  "updated"    TEXT DEFAULT '' NOT NULL
)`,
  `CREATE UNIQUE INDEX IF NOT EXISTS "_collections_name_idx" ON "_collections" (lower("name"))`,
  `CREATE TABLE IF NOT EXISTS "_params" (
  "id"      TEXT PRIMARY KEY NOT NULL,
  "value"   JSON DEFAULT NULL,
  "created" TEXT DEFAULT '' NOT NULL,
  "updated" TEXT DEFAULT '' NOT NULL
)`,
  // PocketBase's `_migrations`; `applied` holds microseconds, past PostgreSQL's 32-bit INTEGER.
  `CREATE TABLE IF NOT EXISTS "_migrations" (
  "file"    VARCHAR(255) PRIMARY KEY NOT NULL,
  "applied" BIGINT NOT NULL
)`,
]

/**
 * An advisory lock key for the migrations of one schema: instances starting together on one
 * database take turns (CREATE … IF NOT EXISTS is not safe against a concurrent creator).
 */
export const MIGRATE_LOCK = 0x73766301

/** Creates the system tables of the main schema, one instance at a time. */
export async function migratePostgres(db: PgDb): Promise<void> {
  const client = await db.connect()
  let broken = false
  try {
    await client.query('BEGIN')
    try {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))', [
        MIGRATE_LOCK,
      ])
      for (const statement of SYSTEM_TABLES) await client.query(statement)
      await jsonbToJson(client)
      await client.query('COMMIT')
    } catch (err) {
      await client.query('ROLLBACK').catch(() => (broken = true))
      throw err
    }
  } finally {
    client.release(broken)
  }
}

/**
 * Schemas made before JSON columns were `JSON` held them as `JSONB` (which sorts object keys):
 * they become `JSON`, in the same migration transaction. A plain index on such a column (JSON
 * has no ordering) stops the start with a message naming it.
 */
async function jsonbToJson(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ t: string; c: string }>(
    `SELECT c.table_name AS t, c.column_name AS c
       FROM information_schema.columns c
       JOIN information_schema.tables t
         ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND c.data_type = 'jsonb'
        AND t.table_type = 'BASE TABLE'`,
  )
  const q = (name: string): string => `"${name.replaceAll('"', '""')}"`
  for (const { t, c } of rows) {
    await client.query('SAVEPOINT svc_json')
    try {
      await client.query(`ALTER TABLE ${q(t)} ALTER COLUMN ${q(c)} TYPE JSON USING ${q(c)}::json`)
      await client.query('RELEASE SAVEPOINT svc_json')
    } catch (err) {
      await client.query('ROLLBACK TO SAVEPOINT svc_json')
      throw new Error(
        `cannot make the JSONB column ${t}.${c} JSON (${(err as Error).message}): drop the index on it and start again`,
      )
    }
  }
}
