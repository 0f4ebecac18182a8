/**
 * The store seam: the `Store` contract an engine fills, and the engines there are. Core code
 * depends on the contract; only the composition (the app's default) names an engine.
 */
export type { DatabaseName, Store } from './store.js'
export { createSqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js'
export { createPostgresStore, type PostgresStoreOptions } from './postgres/postgres-store.js'
export { postgresHasData } from './postgres/has-data.js'
