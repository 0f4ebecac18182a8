import type { Cluster } from './cluster.js'
import type { ConsoleRequest, ConsoleResult } from './console.js'
import type { Db } from './db.js'
import type { Dialect } from './dialect.js'
import type { SchemaManager } from './schema.js'

/**
 * The databases of a store, by role: `main` holds collections, records and settings;
 * `auxiliary` holds what is written often and may be lost without harm (request logs). A store
 * may keep both in one database (a PostgreSQL schema each, say); the names stay the same.
 */
export type DatabaseName = 'main' | 'auxiliary'

/**
 * What a data folder held before svcbase first opened it (`Store.inspectFolder`): nothing yet,
 * PocketBase's data (0.23 and later, or older), or svcbase's own.
 */
export interface FolderInspection {
  kind: 'empty' | 'pocketbase' | 'pocketbase-legacy' | 'svcbase'
  /** svcbase's own rows in its earlier `_collections` format (options nested). */
  legacyFormat: boolean
  /** The names of the collections the folder holds. */
  collections: string[]
  /** The database files (and WAL files) present, relative to the folder. */
  files: string[]
}

/**
 * Where an app keeps its data: the seam a storage engine fills (SQLite files now, PostgreSQL
 * next). The app calls `open` then `migrate` when it bootstraps and `close` when it terminates,
 * and may do so again in the same process (a restart), so a closed store can be opened again.
 * All SQL reaches the engine through `dialect`; code outside `store/` never names the engine.
 */
export interface Store {
  /** How SQL is written for this engine. */
  readonly dialect: Dialect
  /** DDL for collection tables, indexes and views on this engine. */
  readonly schema: SchemaManager
  /** True between `open` and `close`. */
  readonly isOpen: boolean
  /** Opens (creating if needed) every database. Throws if the store is open already. */
  open(): Promise<void>
  /**
   * What the data folder holds, read without writing, before `open` (a store whose data is not
   * in a folder of files has none).
   */
  inspectFolder?(): FolderInspection
  /** Creates or upgrades the system tables; idempotent, so it runs at every start. */
  migrate(): Promise<void>
  /** A database by role; throws while the store is closed. */
  database(name: DatabaseName): Db
  /**
   * Writes a consistent snapshot of every database's committed state into the folder `dir`
   * while writers keep writing, one file per database, and returns their paths (`main` first).
   * The folder must exist and hold none of those files yet. Each file opens on its own with
   * the engine's ordinary tools.
   */
  backup(dir: string): Promise<string[]>
  /**
   * Checks a folder laid out as `backup(dir)` fills it (say, extracted from an archive) before
   * it replaces the live data: only the store's database files, the main one present, each
   * intact (SQLite: `PRAGMA integrity_check`) and the main one holding svcbase's own tables.
   * Works whether the store is open or not; rejects with an Error saying what is wrong.
   */
  checkSnapshot(dir: string): Promise<void>
  /**
   * Replaces the live data with the snapshot in `dir` (as `checkSnapshot` accepted it), for a
   * restore while the app is stopped (the store closed), when the engine's data lives outside
   * the data folder (PostgreSQL: the live schemas renamed aside, the dumps restored into fresh
   * ones). `undo` puts the replaced data back; `done` drops it. A store without it (SQLite) is
   * restored by swapping the files of the data folder.
   */
  restore?(dir: string): Promise<{ undo(): Promise<void>; done(): Promise<void> }>
  /**
   * The daily upkeep of every database (SQLite: `PRAGMA optimize` and a WAL checkpoint that
   * empties the WAL), serialised with the writers.
   */
  optimize(): Promise<void>
  /**
   * Runs one statement of the SQL console on the `main` database, on a connection of its own
   * that is really cancelled at `timeoutMs` (a write rolled back): reads on a read-only
   * connection, writes serialised with the app's transactions. Driver errors reject as a
   * `DbError` carrying the driver's message; see `console.ts` for the other failures.
   */
  console(request: ConsoleRequest): Promise<ConsoleResult>
  /**
   * The link to the other instances sharing this store's data, when the engine offers one
   * (PostgreSQL: LISTEN/NOTIFY, advisory locks, a counters table). Called once per app start,
   * after `open`; the app starts and closes it.
   */
  cluster?(): Cluster
  /** Finishes pending commits and closes every connection; a no-op when closed. */
  close(): Promise<void>
}
