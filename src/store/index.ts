import type { Db } from './db.js'
import type { SchemaManager } from './schema.js'
import { SqliteDb, type SqliteOptions } from './sqlite/database.js'
import { migrateSqlite } from './sqlite/migrations.js'
import { sqliteSchema } from './sqlite/schema.js'

/** The opened databases of an app and the DDL manager of their dialect. */
export interface Store {
  /** `data.db`: collections, records, settings. */
  db: Db
  /** `auxiliary.db`: request logs. */
  auxDb: Db
  schema: SchemaManager
  close(): Promise<void>
}

/** Opens (creating if needed) the SQLite files and migrates their system tables. */
export async function openStore(
  dataFile: string,
  auxFile: string,
  options: SqliteOptions = {},
): Promise<Store> {
  const db = new SqliteDb(dataFile, options)
  const auxDb = new SqliteDb(auxFile, options)
  await migrateSqlite(db)
  return {
    db,
    auxDb,
    schema: sqliteSchema,
    async close() {
      await db.close()
      await auxDb.close()
    },
  }
}
