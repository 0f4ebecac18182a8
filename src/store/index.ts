/**
 * The store seam: the `Store` contract an engine fills, and the engines there are. Core code
 * depends on the contract; only the composition (the app's default) names an engine.
 */
export type { DatabaseName, Store } from './store.js'
export { createSqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js'
// NB: PostgreSQL's engine (and `pg`) loads when its store opens (postgres-lazy.ts).
export { createPostgresStore, postgresHasData, type PostgresStoreOptions } from './postgres-lazy.js'
