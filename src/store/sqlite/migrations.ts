import type { SqliteDb } from './database.js'

/**
 * The system tables every data.db has, created idempotently at start. `_migrations` is
 * PocketBase's own (the applied `pb_migrations` files, `applied` in microseconds), so a folder
 * PocketBase already migrated keeps its history.
 */
const SYSTEM_TABLES = `
CREATE TABLE IF NOT EXISTS "_collections" (
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
);
CREATE UNIQUE INDEX IF NOT EXISTS "_collections_name_idx" ON "_collections" ("name" COLLATE NOCASE);
CREATE TABLE IF NOT EXISTS "_params" (
  "id"      TEXT PRIMARY KEY NOT NULL,
  "value"   JSON DEFAULT NULL,
  "created" TEXT DEFAULT '' NOT NULL,
  "updated" TEXT DEFAULT '' NOT NULL
);
CREATE TABLE IF NOT EXISTS "_migrations" (
  "file"    VARCHAR(255) PRIMARY KEY NOT NULL,
  "applied" INTEGER NOT NULL
);
`

/** Creates the system tables of `data.db`. */
export async function migrateSqlite(db: SqliteDb): Promise<void> {
  await db.execScript(SYSTEM_TABLES)
}
