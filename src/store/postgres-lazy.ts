/**
 * The PostgreSQL store as the store seam exports it: the engine (`postgres/postgres-store.ts`,
 * with `pg`, which also pulls in Node's bundled `undici` fetch when it loads) is imported when
 * the store opens, so a process on SQLite never loads it (about 3 MB of a fresh server's resident
 * memory; bench/NOTES.md, "Idle memory"). The dialect and the schema manager, which need no
 * driver, are there from the start; everything else is the engine's own, once open.
 */
import type { Db } from './db.js'
import type { Store } from './store.js'
import { postgresDialect } from './postgres/postgres-dialect.js'
import type { PostgresStoreOptions } from './postgres/postgres-store.js'
import { postgresSchema } from './postgres/schema.js'

export type { PostgresStoreOptions }

/** The checks of `postgresSchemas` (and its `quoteSchema`), made at creation as the engine does. */
function checkSchema(schema = 'public'): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`)
  if (schema.length > 59) throw new Error(`the schema name ${schema} is longer than 59 characters`)
}

/**
 * Creates the PostgreSQL store (see `postgres/postgres-store.ts`); its engine module loads on
 * `open()` (or on a snapshot check or restore, which need no open store). Nothing connects
 * until `open()`.
 */
export function createPostgresStore(options: PostgresStoreOptions): Store {
  checkSchema(options.schema)
  let engine: Store | null = null
  let loading: Promise<Store> | null = null
  const load = (): Promise<Store> =>
    (loading ??= import('./postgres/postgres-store.js').then(
      (m) => (engine = m.createPostgresStore(options)),
    ))
  const loaded = (): Store => {
    if (!engine) throw new Error('the store is not open')
    return engine
  }
  return {
    dialect: postgresDialect,
    schema: postgresSchema,
    get isOpen() {
      return engine?.isOpen ?? false
    },
    async open() {
      await (await load()).open()
    },
    async migrate() {
      await loaded().migrate()
    },
    database: (name): Db => loaded().database(name),
    backup: (dir) => loaded().backup(dir),
    checkSnapshot: async (dir) => (await load()).checkSnapshot(dir),
    restore: async (dir) => (await load()).restore!(dir),
    async optimize() {
      await loaded().optimize()
    },
    console: (request) => loaded().console(request),
    cluster: () => loaded().cluster!(),
    async close() {
      if (loading) await (await loading).close()
    },
  }
}

/** Whether a PostgreSQL schema holds svcbase's data (see `postgres/has-data.ts`). */
export async function postgresHasData(url: string, schema: string): Promise<boolean> {
  const { postgresHasData: hasData } = await import('./postgres/has-data.js')
  return hasData(url, schema)
}
