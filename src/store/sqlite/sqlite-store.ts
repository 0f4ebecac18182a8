import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { ConsoleResult } from '../console.js'
import type { Db } from '../db.js'
import type { DatabaseName, Store } from '../store.js'
import { runSqliteConsole } from './console.js'
import { SqliteDb } from './database.js'
import { inspectSqliteFolder } from './folder.js'
import { migrateSqlite } from './migrations.js'
import { sqliteSchema } from './schema.js'
import { checkSqliteSnapshot } from './snapshot-check.js'
import { sqliteDialect } from './sqlite-dialect.js'

/** Options of the SQLite store. */
export interface SqliteStoreOptions {
  /** The folder of `data.db` and `auxiliary.db`, created if missing. */
  dir: string
  /** Milliseconds a connection waits for a lock before failing. */
  busyTimeout?: number
  /** Called with the text of every statement run (`serve --dev`). */
  verbose?: (sql: string) => void
}

/** The file of each database, inside the store's folder. */
const fileNames: Readonly<Record<DatabaseName, string>> = {
  main: 'data.db',
  auxiliary: 'auxiliary.db',
}

/** Every database, `main` first (the order of `open`, `backup` and `close`). */
const names = Object.keys(fileNames) as DatabaseName[]

/**
 * Creates the SQLite store: `data.db` (main) and `auxiliary.db` in `dir`, each a `SqliteDb`
 * (WAL, one serialised writer, one reader, group commit). Nothing is opened until `open()`.
 */
export function createSqliteStore(options: SqliteStoreOptions): Store {
  let open: Record<DatabaseName, SqliteDb> | null = null
  const sqliteOptions = { busyTimeout: options.busyTimeout, verbose: options.verbose }
  const opened = (): Record<DatabaseName, SqliteDb> => {
    if (!open) throw new Error('the store is not open')
    return open
  }
  return {
    dialect: sqliteDialect,
    schema: sqliteSchema,
    get isOpen() {
      return open !== null
    },
    async open() {
      if (open) throw new Error('the store is open already')
      mkdirSync(options.dir, { recursive: true })
      const main = new SqliteDb(join(options.dir, fileNames.main), sqliteOptions)
      try {
        open = {
          main,
          auxiliary: new SqliteDb(join(options.dir, fileNames.auxiliary), sqliteOptions),
        }
      } catch (err) {
        await main.close()
        throw err
      }
    },
    inspectFolder() {
      return inspectSqliteFolder(
        options.dir,
        names.map((n) => fileNames[n]),
      )
    },
    async migrate() {
      // The auxiliary database has no system tables: `_logs` is a collection, synced as any.
      await migrateSqlite(opened().main)
    },
    database(name): Db {
      return opened()[name]
    },
    async backup(dir) {
      const dbs = opened()
      const paths: string[] = []
      // One after the other: each snapshot is a full read of its file.
      for (const name of names) {
        const target = join(dir, fileNames[name])
        await dbs[name].backup(target)
        paths.push(target)
      }
      return paths
    },
    checkSnapshot(dir) {
      return checkSqliteSnapshot(dir, fileNames)
    },
    async optimize() {
      const dbs = opened()
      for (const name of names) await dbs[name].optimize()
    },
    async console(request): Promise<ConsoleResult> {
      const main = opened().main
      const busy = options.busyTimeout ?? 10_000
      if (!request.write) return runSqliteConsole(main.file, request, busy)
      const result = await main.exclusive(() => runSqliteConsole(main.file, request, busy))
      if (result.kind === 'write' && result.schemaChanged) main.resetStatements()
      return result
    },
    async close() {
      const dbs = open
      if (!dbs) return
      open = null
      try {
        await dbs.main.close()
      } finally {
        await dbs.auxiliary.close()
      }
    },
  }
}
