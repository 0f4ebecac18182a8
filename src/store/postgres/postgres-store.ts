import pg from 'pg'
import { DbError, type Db } from '../db.js'
import { ident, join, sql } from '../sql.js'
import type { DatabaseName, Store } from '../store.js'
import { PgDb, quoteSchema } from './database.js'
import { migratePostgres, MIGRATE_LOCK } from './migrations.js'
import { postgresDialect } from './postgres-dialect.js'
import { postgresSchema } from './schema.js'
import { runPostgresConsole } from './console.js'
import { restorePostgres } from './restore.js'
import { checkPostgresSnapshot } from './snapshot-check.js'
import { backupPostgres } from './snapshot.js'
import { PgSyncDb } from './sync-reads.js'
import { createPostgresCluster } from './cluster.js'

/** Options of the PostgreSQL store. */
export interface PostgresStoreOptions {
  /** A `postgres://` (or `postgresql://`) connection string. */
  url: string
  /**
   * The schema of the main data (default `public`); the auxiliary data (request logs) goes to
   * `<schema>_aux`, or `svc_aux` for `public`. Both are created when missing.
   */
  schema?: string
  /** Called with the text of every statement run (`serve --dev`). */
  verbose?: (sql: string) => void
  /** Connections in each schema's pool (default 10). */
  max?: number
  /**
   * Whether statements run again are named prepared statements (default true): off for a
   * connection pooler that cannot keep them (`SVC_DATABASE_PREPARED=off`).
   */
  prepared?: boolean
  /**
   * Where this instance keeps local files (a digest of the machine and the data folder), told to
   * the cluster so instances sharing one data folder count once for file storage.
   */
  place?: string
}

/** The schema of each database for a main schema name. */
export function postgresSchemas(schema = 'public'): Record<DatabaseName, string> {
  quoteSchema(schema)
  if (schema.length > 59) throw new Error(`the schema name ${schema} is longer than 59 characters`)
  return { main: schema, auxiliary: schema === 'public' ? 'svc_aux' : `${schema}_aux` }
}

/** Creates the schemas when missing, one instance at a time. */
async function createSchemas(url: string, schemas: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock($1, 0)', [MIGRATE_LOCK])
    for (const s of schemas) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteSchema(s)}`)
    await client.query('COMMIT')
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    throw new DbError(`cannot open the PostgreSQL database: ${message}`, err)
  } finally {
    await client.end().catch(() => {})
  }
}

/** Every database, `main` first (the order of `open` and `close`). */
const names: readonly DatabaseName[] = ['main', 'auxiliary']

/**
 * Creates the PostgreSQL store: one schema for the main data and one for the auxiliary data in
 * the database at `url`, each reached through a `PgDb` pool bound to it by `search_path`.
 * Nothing connects until `open()`.
 */
export function createPostgresStore(options: PostgresStoreOptions): Store {
  const schemas = postgresSchemas(options.schema)
  let open: Record<DatabaseName, PgDb> | null = null
  const opened = (): Record<DatabaseName, PgDb> => {
    if (!open) throw new Error('the store is not open')
    return open
  }
  return {
    dialect: postgresDialect,
    schema: postgresSchema,
    get isOpen() {
      return open !== null
    },
    async open() {
      if (open) throw new Error('the store is open already')
      await createSchemas(options.url, [schemas.main, schemas.auxiliary])
      // With synchronous reads (a worker thread, started only when a `*.pb.js` find needs one).
      const make = (name: DatabaseName) =>
        new PgSyncDb({
          url: options.url,
          schema: schemas[name],
          max: options.max,
          verbose: options.verbose,
          prepared: options.prepared,
        })
      open = { main: make('main'), auxiliary: make('auxiliary') }
    },
    async migrate() {
      // The auxiliary schema has no system tables: `_logs` is a collection, synced as any.
      await migratePostgres(opened().main)
    },
    database(name): Db {
      return opened()[name]
    },
    backup(dir) {
      opened()
      return backupPostgres({ url: options.url, schemas }, dir)
    },
    checkSnapshot(dir) {
      return checkPostgresSnapshot(dir, { url: options.url, schemas })
    },
    restore: (dir) => restorePostgres({ url: options.url, schemas }, dir),
    async optimize() {
      // ANALYZE of this store's tables only: other schemas may share the database.
      for (const name of names) {
        const db = opened()[name]
        const tables = await db.all<{ name: string }>(
          sql`SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
        )
        if (tables.length === 0) continue
        await db.run(sql`ANALYZE ${join(tables.map((t) => ident(t.name)))}`)
      }
    },
    console(request) {
      return runPostgresConsole(opened().main, request)
    },
    cluster() {
      return createPostgresCluster({
        url: options.url,
        schema: schemas.main,
        place: options.place,
        prepared: options.prepared,
      })
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
