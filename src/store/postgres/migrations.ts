import type { PgDb } from './database.js'

/**
 * The system tables of the main schema, created idempotently at start: SQLite's
 * (`sqlite/migrations.ts`) with PostgreSQL types (JSON as JSONB, BOOLEAN) and the
 * case-insensitive unique name index as `lower("name")`.
 */
const SYSTEM_TABLES = [
  `CREATE TABLE IF NOT EXISTS "_collections" (
  "id"         TEXT PRIMARY KEY NOT NULL,
  "name"       TEXT NOT NULL,
  "type"       TEXT NOT NULL,
  "system"     BOOLEAN DEFAULT FALSE NOT NULL,
  "fields"     JSONB DEFAULT '[]' NOT NULL,
  "indexes"    JSONB DEFAULT '[]' NOT NULL,
  "listRule"   TEXT DEFAULT NULL,
  "viewRule"   TEXT DEFAULT NULL,
  "createRule" TEXT DEFAULT NULL,
  "updateRule" TEXT DEFAULT NULL,
  "deleteRule" TEXT DEFAULT NULL,
  "options"    JSONB DEFAULT '{}' NOT NULL,
  "created"    TEXT DEFAULT '' NOT NULL,
  "updated"    TEXT DEFAULT '' NOT NULL
)`,
  `CREATE UNIQUE INDEX IF NOT EXISTS "_collections_name_idx" ON "_collections" (lower("name"))`,
  `CREATE TABLE IF NOT EXISTS "_params" (
  "id"      TEXT PRIMARY KEY NOT NULL,
  "value"   JSONB DEFAULT NULL,
  "created" TEXT DEFAULT '' NOT NULL,
  "updated" TEXT DEFAULT '' NOT NULL
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
      await client.query('COMMIT')
    } catch (err) {
      await client.query('ROLLBACK').catch(() => (broken = true))
      throw err
    }
  } finally {
    client.release(broken)
  }
}
