import { mkdirSync } from 'node:fs'
import { localCluster, type Cluster } from '../store/cluster.js'
import type { Db } from '../store/db.js'
import type { Store } from '../store/index.js'
import type { SchemaManager } from '../store/schema.js'
import { sql } from '../store/sql.js'
import { bcryptPool } from '../tools/bcrypt-pool.js'
import { cpuPool } from '../tools/cpu-pool.js'
import type { Filesystem } from '../tools/filesystem/types.js'
import type { App, AppConfig, TerminateOptions } from './app.js'
import { bindAuthRecordHooks } from './auth/record-hooks.js'
import { ClusterBridge } from './cluster-bridge.js'
import { databaseOf, type Collection } from './collections/model.js'
import { CollectionRegistry } from './collections/registry.js'
import { CollectionService } from './collections/service.js'
import { withSystemCollections, type SystemCollectionSpec } from './collections/system.js'
import { CronScheduler } from './cron/scheduler.js'
import type { AppCron } from './cron/types.js'
import { EventBus, LocalTransport } from './events.js'
import { createHooks, type AppHooks } from './hooks.js'
import { createLogger, type Logger } from './logger.js'
import { LogMailer } from './mail.js'
import { RecordService } from './records/service.js'
import { createServices, type ServiceRegistry } from './services.js'
import { defaultStore } from './store-choice.js'
import { SettingsRegistry, SettingsService, type SettingsGroup } from './settings/index.js'
import { beginFirstOpen, recordPocketBaseMigrations, type FirstOpen } from './first-open.js'
import { createStorage } from './storage.js'
import { sweepTemp } from './temp-sweep.js'
import { followReadBudget } from './read-budget.js'

type Callback = () => void | Promise<void>

/** Work deferred to the end of a transaction. */
interface TxCallbacks {
  commit: Callback[]
  rollback: Callback[]
}

/** What a transactional app is bound to. */
interface TxState {
  db: Db
  registry: CollectionRegistry
  callbacks: TxCallbacks
}

/** What `bootstrap` opens and `terminate` closes. */
interface Opened {
  store: Store
  settings: SettingsService
  storage: Filesystem
  registry: CollectionRegistry
  /** The link to the other instances, started at bootstrap and closed at terminate. */
  cluster: Cluster
  /** Carries the bus's events to and from the other instances (started once loaded). */
  bridge: ClusterBridge
  /** Releases this app's hold on the bcrypt worker pool. */
  releasePool: () => Promise<void>
  /** Stops following `settings.reads` (the store's read budget). */
  unfollowReads?: () => void
}

/** The parts shared by an app and all its transactional views. */
interface Shared {
  config: AppConfig
  logger: Logger
  /** The store, opened by `bootstrap` and closed by `terminate`. */
  store: Store
  hooks: AppHooks
  events: EventBus
  services: ServiceRegistry
  cron: CronScheduler
  opened: Opened | null
  /** The settings groups, kept across bootstraps (features register theirs once). */
  settingsGroups: SettingsRegistry
  /** Core's system collections and the features'. */
  systemCollectionSpecs: readonly SystemCollectionSpec[]
  serving: boolean
  terminating: Promise<void> | null
  /** A first open held until `settleFirstOpen` (`AppConfig.holdFirstOpen`). */
  heldFirstOpen: { first: FirstOpen; collections: string[] } | null
}

class AppImpl implements App {
  readonly collections: CollectionService
  readonly records: RecordService

  constructor(
    private readonly shared: Shared,
    private readonly tx: TxState | null,
  ) {
    this.collections = new CollectionService(this)
    this.records = new RecordService(this)
  }

  /** The bootstrapped state; throws before `bootstrap()` and after `terminate()`. */
  private get opened(): Opened {
    const opened = this.shared.opened
    if (!opened) throw new Error('the app is not bootstrapped (or was terminated)')
    return opened
  }

  get config(): AppConfig {
    return this.shared.config
  }
  get logger(): Logger {
    return this.shared.logger
  }
  get db(): Db {
    return this.tx?.db ?? this.opened.store.database('main')
  }
  get registry(): CollectionRegistry {
    return this.tx?.registry ?? this.opened.registry
  }
  get auxDb(): Db {
    return this.opened.store.database('auxiliary')
  }
  get schema(): SchemaManager {
    return this.opened.store.schema
  }
  get store(): Store {
    return this.shared.store
  }
  get hooks(): AppHooks {
    return this.shared.hooks
  }
  get events(): EventBus {
    return this.shared.events
  }
  get cluster(): Cluster {
    return this.opened.cluster
  }
  get settings(): SettingsService {
    return this.opened.settings
  }
  get systemCollectionSpecs(): readonly SystemCollectionSpec[] {
    return this.shared.systemCollectionSpecs
  }
  registerSettingsGroup<T>(group: SettingsGroup<T>): void {
    // The open service shares the table, and also lays the stored value over the defaults.
    if (this.shared.opened) this.shared.opened.settings.registerGroup(group)
    else this.shared.settingsGroups.register(group)
  }
  get storage(): Filesystem {
    return this.opened.storage
  }
  get services(): ServiceRegistry {
    return this.shared.services
  }
  get cron(): AppCron {
    return this.shared.cron
  }
  get isTransactional(): boolean {
    return this.tx !== null
  }
  get isBootstrapped(): boolean {
    return this.shared.opened !== null
  }

  dbFor(collection: Collection): Db {
    const name = databaseOf(collection)
    return name === 'main' ? this.db : this.opened.store.database(name)
  }

  async runInTransaction<T>(fn: (txApp: App) => Promise<T>): Promise<T> {
    if (this.isTransactional) return fn(this)
    let callbacks: TxCallbacks = { commit: [], rollback: [] }
    const registry = this.registry
    let result: T
    try {
      result = await this.db.transaction(async (db) => {
        // NB: an engine may run `fn` again after a conflict (PostgreSQL): the rolled-back
        // attempt's after-rollback callbacks run first, and only the last attempt's stay.
        const failed = callbacks
        callbacks = { commit: [], rollback: [] }
        await this.runCallbacks(failed.rollback, 'after-rollback')
        // Forked once this transaction holds the writer, so it sees every committed change; a
        // changed fork is adopted right at commit, before the next transaction forks.
        const fork = registry.fork()
        const value = await fn(new AppImpl(this.shared, { db, registry: fork, callbacks }))
        if (fork.isChanged) db.onCommit(() => registry.adopt(fork))
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
    this.tx?.callbacks.rollback.push(fn)
  }

  onAfterCommit(fn: Callback): void {
    if (this.tx) {
      this.tx.callbacks.commit.push(fn)
      return
    }
    Promise.resolve()
      .then(fn)
      .catch((err: unknown) =>
        this.logger.error('after-commit callback failed', { error: String(err) }),
      )
  }

  async bootstrap(): Promise<void> {
    this.assertRoot('bootstrap')
    if (this.shared.opened) await this.terminate({ isRestart: true })
    await this.hooks.onBootstrap.trigger({ app: this }, () => this.open())
  }

  async serve(): Promise<void> {
    this.assertRoot('serve')
    if (this.shared.serving) return
    if (!this.shared.opened) throw new Error('cannot serve an app that is not bootstrapped')
    await this.hooks.onServe.trigger({ app: this }, () => {
      this.shared.cron.start()
      this.shared.serving = true
    })
  }

  async terminate(options: TerminateOptions = {}): Promise<void> {
    this.assertRoot('terminate')
    if (!this.shared.terminating) {
      if (!this.shared.opened) return
      const event = { app: this, isRestart: options.isRestart === true }
      this.shared.terminating = this.hooks.onTerminate
        .trigger(event, () => this.shutdown())
        .finally(() => {
          this.shared.terminating = null
        })
    }
    await this.shared.terminating
  }

  close(): Promise<void> {
    return this.terminate()
  }

  async settleFirstOpen(ok: boolean): Promise<void> {
    const held = this.shared.heldFirstOpen
    if (!held) return
    this.shared.heldFirstOpen = null
    if (ok) await held.first.done(held.collections)
    else await held.first.rollback()
  }

  private assertRoot(what: string): void {
    if (this.tx) throw new Error(`cannot ${what} an app from inside a transaction`)
  }

  /** The built-in action of `onBootstrap`: opens the store and loads settings and collections. */
  private async open(): Promise<void> {
    const { config, events, store } = this.shared
    mkdirSync(config.dataDir, { recursive: true })
    // What a crashed process left (upload folders, storage temp files), before anything serves.
    await sweepTemp(config.dataDir, this.logger)
    const inspection = store.inspectFolder?.()
    const first = await beginFirstOpen(inspection, config.dataDir, this.logger)
    await store.open()
    const { encryptionKey } = config
    const settings = new SettingsService(
      store.database('main'),
      events,
      encryptionKey,
      this.shared.settingsGroups,
    )
    const storage = createStorage(() => settings.get(), config.dataDir)
    const registry = new CollectionRegistry()
    const cluster = config.cluster ?? store.cluster?.() ?? localCluster()
    const bridge = new ClusterBridge(this, events, cluster, () => this.reloadCollections())
    this.shared.opened = {
      store,
      settings,
      storage,
      registry,
      cluster,
      bridge,
      releasePool: cpuPool.retain(bcryptPool.retain()),
    }
    try {
      await cluster.start()
      await store.migrate()
      await settings.load()
      this.shared.opened.unfollowReads = followReadBudget(store, settings, events)
      await this.collections.load()
      if (first?.inspection.legacyFormat) await this.collections.rewriteStored()
      await this.collections.ensureSystemCollections()
      // A folder svcbase made opens in PocketBase too: its schema migrations count as applied.
      if (inspection) await recordPocketBaseMigrations(store.database('main'))
      bridge.start()
    } catch (err) {
      await this.shutdown()
      await first?.rollback()
      throw err
    }
    const collections = this.registry.all().map((c) => c.name)
    if (first && config.holdFirstOpen) this.shared.heldFirstOpen = { first, collections }
    else await first?.done(collections)
  }

  /**
   * Reads the collections again after another instance changed them: in a transaction, so the
   * new registry replaces the shared one at commit as a local schema change would.
   */
  private async reloadCollections(): Promise<void> {
    await this.runInTransaction(async (tx) => {
      const txApp = tx as AppImpl
      const rows = await txApp.db.all<{ id: string }>(sql`SELECT id FROM _collections`)
      const ids = new Set(rows.map((r) => r.id))
      for (const c of txApp.registry.all()) if (!ids.has(c.id)) txApp.registry.remove(c.id)
      await txApp.collections.load()
    })
    // NB: the schema changed under this process's connections: drop their prepared statements.
    this.db.resetStatements()
  }

  /** The built-in action of `onTerminate`: stops the scheduler, closes storage and the store. */
  private async shutdown(): Promise<void> {
    await this.shared.cron.stop()
    this.shared.serving = false
    const opened = this.shared.opened
    if (!opened) return
    opened.unfollowReads?.()
    try {
      await opened.bridge.stop()
      await opened.cluster.close()
      await opened.storage.close()
      await opened.store.close()
    } finally {
      this.shared.opened = null
      await opened.releasePool()
    }
  }
}

/** What a composition root adds to an app beyond its config: its features' system collections. */
export interface AppParts {
  systemCollections?: readonly SystemCollectionSpec[]
}

/** Builds an app that is not bootstrapped yet: its hooks can be bound before it opens. */
export function newApp(config: AppConfig, parts: AppParts = {}): App {
  const logger = config.logger ?? createLogger(config.dev ? 'debug' : 'info')
  const events = new EventBus(
    config.transport ??
      new LocalTransport((err) => logger.error('event subscriber failed', { error: String(err) })),
  )
  const services = createServices()
  services.set('mailer', new LogMailer(logger))
  const verbose = config.dev ? (sql: string) => logger.debug('SQL', { sql }) : undefined
  const shared: Shared = {
    config,
    logger,
    store: config.store ?? defaultStore(config, verbose),
    hooks: createHooks(),
    events,
    services,
    // NB: the cluster's leader is asked at each run: the cluster is known once bootstrapped.
    cron: new CronScheduler({
      logger,
      leader: config.cronLeader ?? {
        claim: (jobId, at) => shared.opened?.cluster.leader.claim(jobId, at) ?? true,
      },
    }),
    opened: null,
    heldFirstOpen: null,
    settingsGroups: new SettingsRegistry(),
    systemCollectionSpecs: withSystemCollections(parts.systemCollections ?? []),
    serving: false,
    terminating: null,
  }
  return bindAuthRecordHooks(new AppImpl(shared, null))
}

/**
 * Builds and bootstraps an app: opens the store, migrates system tables, loads collections and
 * settings. Stop it with `close()` (or `terminate()`).
 */
export async function createApp(config: AppConfig, parts: AppParts = {}): Promise<App> {
  const app = newApp(config, parts)
  await app.bootstrap()
  return app
}
