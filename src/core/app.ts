/**
 * The App interface and its config: the one context object every service and feature takes.
 * Only types live here; `create-app.ts` builds the implementation. Services depend on this
 * interface, never on the implementation, and the App knows its services only by their
 * interfaces (`RecordsApi`, `CollectionsApi`, …), so no import loop joins the two.
 */
import type { Cluster } from '../store/cluster.js'
import type { Db } from '../store/db.js'
import type { SchemaManager } from '../store/schema.js'
import type { Store } from '../store/store.js'
import type { Filesystem } from '../tools/filesystem/types.js'
import type { CollectionsApi } from './collections/api.js'
import type { Collection } from './collections/model.js'
import type { CollectionRegistry } from './collections/registry.js'
import type { SystemCollectionSpec } from './collections/system.js'
import type { AppCron, CronLeader } from './cron/types.js'
import type { EventBus, EventTransport } from './events.js'
import type { AppHooks } from './hooks.js'
import type { Logger } from './logger.js'
import type { RecordsApi } from './records/api.js'
import type { ServiceRegistry } from './services.js'
import type { SettingsGroup, SettingsService } from './settings/index.js'

/** How an app is configured. Every field but `dataDir` has a default. */
export interface AppConfig {
  /** Folder of `data.db`, `auxiliary.db`, `storage/`, `backups/`. */
  dataDir: string
  /** Folder of hook scripts. */
  hooksDir?: string
  /** Folder served at `/` outside `/api` and `/_/` (docs/static.md); none when absent. */
  publicDir?: string
  /** Missing extensionless paths under `publicDir` answer its `index.html` (default true). */
  indexFallback?: boolean
  /** The built dashboard served at `/_/` (default: the package's `dist/ui`). */
  dashboardDir?: string
  logger?: Logger
  /** A shared event transport for several instances; local by default. */
  transport?: EventTransport
  /** Decides which instance runs each scheduled job; this one always, by default. */
  cronLeader?: CronLeader
  /** Development mode: debug logging, every request and every SQL statement printed. */
  dev?: boolean
  /** Encrypts the stored settings at rest (AES-256-GCM) with a key derived from this secret. */
  encryptionKey?: string
  /**
   * Keeps the first open of a folder PocketBase wrote (its backup and the copies to put back,
   * `core/first-open.ts`) unsettled after bootstrap, until `settleFirstOpen`: `serve` settles it
   * once the migrations applied, so a start that fails there too changes nothing.
   */
  holdFirstOpen?: boolean
  /**
   * A PostgreSQL URL (`postgres://…`): the data lives there instead of SQLite files in `dataDir`.
   * Default: the `SVC_DATABASE_URL` environment variable; neither means SQLite.
   */
  databaseUrl?: string
  /**
   * The PostgreSQL schema of the data (default `SVC_DATABASE_SCHEMA`, else `public`); `@dir`
   * derives one schema per data folder from `dataDir`.
   */
  databaseSchema?: string
  /**
   * The link to other instances sharing the data (`serve --workers`' IPC cluster); default: the
   * store's own (`Store.cluster`, PostgreSQL) or none (one process alone).
   */
  cluster?: Cluster
  /**
   * Where the data lives; the app opens and migrates it at `bootstrap()` and closes it at
   * `terminate()`. Default: the SQLite store in `dataDir` (`data.db`, `auxiliary.db`).
   */
  store?: Store
}

/** Options of `App.terminate`. */
export interface TerminateOptions {
  /** True when the app is bootstrapped again right after (a restore); handlers may keep state. */
  isRestart?: boolean
}

/**
 * The one context object: every service hangs off it, and `runInTransaction` hands the same
 * API bound to a transaction. No module-level state, so many apps can live in one process.
 *
 * Lifecycle (PocketBase's): `bootstrap()` opens the databases and loads settings and collections
 * (hook `onBootstrap`); `serve()` starts the scheduler and the features' background tasks (hook
 * `onServe`); `terminate()` stops all of them and closes the databases (hook `onTerminate`). An
 * app can be bootstrapped again after `terminate()`, in-process.
 */
export interface App {
  readonly config: AppConfig
  readonly logger: Logger
  /** The main database (or the open transaction on it, in a transactional app). */
  readonly db: Db
  /** The auxiliary database of `_logs`. */
  readonly auxDb: Db
  readonly schema: SchemaManager
  /** The store the databases come from (open while the app is bootstrapped). */
  readonly store: Store
  readonly hooks: AppHooks
  readonly events: EventBus
  readonly collections: CollectionsApi
  readonly records: RecordsApi
  readonly settings: SettingsService
  /**
   * The link to the other instances sharing the data (`config.cluster`, else the store's own,
   * else a process alone): started at bootstrap, closed at terminate. `shared` tells whether
   * other instances may exist; its bus carries the events of `app.events` (see
   * `cluster-bridge.ts`). Throws before `bootstrap()` and after `terminate()`.
   */
  readonly cluster: Cluster
  /**
   * Adds a feature's settings group. Before `bootstrap()` the group waits in the app's table and
   * is loaded with the others (and kept across restarts); after it, it applies at once, as
   * `settings.registerGroup` does. Throws when the key is taken.
   */
  registerSettingsGroup<T>(group: SettingsGroup<T>): void
  /**
   * The system collections this app creates and keeps up to date: core's, then those of the
   * features it was made with (`newApp(config, { systemCollections })`).
   */
  readonly systemCollectionSpecs: readonly SystemCollectionSpec[]
  /** Object storage for files: local disk or S3, following `settings.s3` live. */
  readonly storage: Filesystem
  /** What features offer each other (the mailer, the realtime messenger, …), typed by name. */
  readonly services: ServiceRegistry
  /** The scheduler of system and user jobs. */
  readonly cron: AppCron
  readonly isTransactional: boolean
  /** The collection registry this app (or transaction) sees. */
  readonly registry: CollectionRegistry
  /**
   * The database a collection's table lives in (its `database` attribute): the open transaction
   * for `main` in a transactional app.
   */
  dbFor(collection: Collection): Db
  /** Runs `fn` in one transaction with a transactional app; nested calls join it. */
  runInTransaction<T>(fn: (txApp: App) => Promise<T>): Promise<T>
  /** Runs `fn` after the current transaction commits (at once outside a transaction). */
  onAfterCommit(fn: () => void | Promise<void>): void
  /** Runs `fn` if the current transaction rolls back (never outside a transaction). */
  onAfterRollback(fn: () => void | Promise<void>): void
  /** True between a successful `bootstrap()` and `terminate()`. */
  readonly isBootstrapped: boolean
  /**
   * Opens the databases, migrates them and loads settings and collections, through the
   * `onBootstrap` hook. A bootstrapped app is terminated first (as a restart).
   */
  bootstrap(): Promise<void>
  /** Starts serving through the `onServe` hook: the scheduler and the features' tasks start. */
  serve(): Promise<void>
  /**
   * Stops everything through the `onTerminate` hook: features stop their tasks, then the
   * scheduler stops (waiting for runs going) and storage and the databases close. Idempotent.
   */
  terminate(options?: TerminateOptions): Promise<void>
  /** `terminate()`: stops the app and closes its databases. */
  close(): Promise<void>
  /**
   * Settles a first open held by `holdFirstOpen`: `ok` keeps the changes; otherwise (call it once
   * the app is closed) the folder is put back as it was. Does nothing when none is held.
   */
  settleFirstOpen(ok: boolean): Promise<void>
}
