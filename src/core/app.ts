import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Db } from '../store/db.js'
import type { SchemaManager } from '../store/schema.js'
import { CollectionRegistry } from './collections/registry.js'
import { CollectionService } from './collections/service.js'
import type { Collection } from './collections/model.js'
import { EventBus, LocalTransport, type EventTransport } from './events.js'
import { createHooks, type AppHooks } from './hooks.js'
import { createLogger, type Logger } from './logger.js'
import { LogMailer, type Mailer } from './mail.js'
import { createStorage } from './storage.js'
import type { Filesystem } from '../tools/filesystem/types.js'
import { RecordService } from './records/service.js'
import { SettingsService } from './settings/index.js'
import { openStore, type Store } from '../store/index.js'

/** How an app is configured. Every field but `dataDir` has a default. */
export interface AppConfig {
  /** Folder of `data.db`, `auxiliary.db`, `storage/`, `backups/`. */
  dataDir: string
  /** Folder of hook scripts. */
  hooksDir?: string
  logger?: Logger
  /** A shared event transport for several instances; local by default. */
  transport?: EventTransport
  /** Development mode: debug logging, every request and every SQL statement printed. */
  dev?: boolean
  /** Encrypts the stored settings at rest (AES-256-GCM) with a key derived from this secret. */
  encryptionKey?: string
}

/**
 * The one context object: every service hangs off it, and `runInTransaction` hands the same
 * API bound to a transaction. No module-level state, so many apps can live in one process.
 */
export interface App {
  readonly config: AppConfig
  readonly logger: Logger
  /** The main database (or the open transaction on it, in a transactional app). */
  readonly db: Db
  /** The auxiliary database of `_logs`. */
  readonly auxDb: Db
  readonly schema: SchemaManager
  readonly hooks: AppHooks
  readonly events: EventBus
  readonly collections: CollectionService
  readonly records: RecordService
  readonly settings: SettingsService
  /** Object storage for files: local disk or S3, following `settings.s3` live. */
  readonly storage: Filesystem
  /** The mail backend currently configured (the log backend until a feature sets SMTP). */
  readonly mailer: Mailer
  /** Replaces the mail backend (the mail feature does so when `settings.smtp` changes). */
  setMailer(mailer: Mailer): void
  readonly isTransactional: boolean
  /** The collection registry this app (or transaction) sees. */
  readonly registry: CollectionRegistry
  /** The database a collection's table lives in. */
  dbFor(collection: Collection): Db
  /** Runs `fn` in one transaction with a transactional app; nested calls join it. */
  runInTransaction<T>(fn: (txApp: App) => Promise<T>): Promise<T>
  /** Runs `fn` after the current transaction commits (at once outside a transaction). */
  onAfterCommit(fn: () => void | Promise<void>): void
  /** Runs `fn` if the current transaction rolls back (never outside a transaction). */
  onAfterRollback(fn: () => void | Promise<void>): void
  close(): Promise<void>
}

type Callback = () => void | Promise<void>

/** Work deferred to the end of a transaction. */
interface TxCallbacks {
  commit: Callback[]
  rollback: Callback[]
}

/** The parts shared by an app and all its transactional views. */
interface Shared {
  config: AppConfig
  logger: Logger
  store: Store
  hooks: AppHooks
  events: EventBus
  settings: SettingsService
  mailer: Mailer
  storage: Filesystem
}

class AppImpl implements App {
  readonly collections: CollectionService
  readonly records: RecordService

  constructor(
    private readonly shared: Shared,
    readonly db: Db,
    readonly registry: CollectionRegistry,
    private readonly txCallbacks: TxCallbacks | null,
  ) {
    this.collections = new CollectionService(this)
    this.records = new RecordService(this)
  }

  get config(): AppConfig {
    return this.shared.config
  }
  get logger(): Logger {
    return this.shared.logger
  }
  get auxDb(): Db {
    return this.shared.store.auxDb
  }
  get schema(): SchemaManager {
    return this.shared.store.schema
  }
  get hooks(): AppHooks {
    return this.shared.hooks
  }
  get events(): EventBus {
    return this.shared.events
  }
  get settings(): SettingsService {
    return this.shared.settings
  }
  get storage(): Filesystem {
    return this.shared.storage
  }
  get mailer(): Mailer {
    return this.shared.mailer
  }
  setMailer(mailer: Mailer): void {
    this.shared.mailer = mailer
  }
  get isTransactional(): boolean {
    return this.txCallbacks !== null
  }

  dbFor(collection: Collection): Db {
    return collection.name === '_logs' ? this.shared.store.auxDb : this.db
  }

  async runInTransaction<T>(fn: (txApp: App) => Promise<T>): Promise<T> {
    if (this.isTransactional) return fn(this)
    const callbacks: TxCallbacks = { commit: [], rollback: [] }
    let result: T
    try {
      result = await this.db.transaction(async (tx) => {
        // Forked once this transaction holds the writer, so it sees every committed change; a
        // changed fork is adopted right at commit, before the next transaction forks.
        const fork = this.registry.fork()
        const value = await fn(new AppImpl(this.shared, tx, fork, callbacks))
        if (fork.isChanged) tx.onCommit(() => this.registry.adopt(fork))
        return value
      })
    } catch (err) {
      await this.runCallbacks(callbacks.rollback, 'after-rollback')
      throw err
    }
    await this.runCallbacks(callbacks.commit, 'after-commit')
    return result
  }

  private async runCallbacks(list: Callback[], what: string): Promise<void> {
    for (const cb of list) {
      try {
        await cb()
      } catch (err) {
        this.logger.error(`${what} callback failed`, { error: String(err) })
      }
    }
  }

  onAfterRollback(fn: Callback): void {
    this.txCallbacks?.rollback.push(fn)
  }

  onAfterCommit(fn: () => void | Promise<void>): void {
    if (this.txCallbacks) {
      this.txCallbacks.commit.push(fn)
      return
    }
    Promise.resolve()
      .then(fn)
      .catch((err: unknown) =>
        this.logger.error('after-commit callback failed', { error: String(err) }),
      )
  }

  async close(): Promise<void> {
    await this.shared.storage.close()
    await this.shared.store.close()
  }
}

/** Builds an app: opens the store, migrates system tables, loads collections and settings. */
export async function createApp(config: AppConfig): Promise<App> {
  mkdirSync(config.dataDir, { recursive: true })
  const logger = config.logger ?? createLogger(config.dev ? 'debug' : 'info')
  const store = await openStore(
    join(config.dataDir, 'data.db'),
    join(config.dataDir, 'auxiliary.db'),
    config.dev ? { verbose: (sql) => logger.debug('SQL', { sql }) } : {},
  )
  const events = new EventBus(
    config.transport ??
      new LocalTransport((err) => logger.error('event subscriber failed', { error: String(err) })),
  )
  const settings = new SettingsService(store.db, events, config.encryptionKey)
  const mailer = new LogMailer(logger)
  const storage = createStorage(() => settings.get(), config.dataDir)
  const shared: Shared = {
    config,
    logger,
    store,
    hooks: createHooks(),
    events,
    settings,
    mailer,
    storage,
  }
  const registry = new CollectionRegistry()
  const app = new AppImpl(shared, store.db, registry, null)
  await settings.load().catch(async (err: unknown) => {
    await store.close()
    throw err
  })
  await app.collections.load()
  await app.collections.ensureSystemCollections()
  return app
}
