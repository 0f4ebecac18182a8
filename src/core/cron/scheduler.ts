import { Cron } from 'croner'
import type { Logger } from '../logger.js'
import { localLeader } from './leader.js'
import type {
  AppCron,
  CronAddOptions,
  CronJobFn,
  CronJobInfo,
  CronLeader,
  CronObserver,
  CronSource,
} from './types.js'

/** Options of a {@link CronScheduler}. */
export interface CronSchedulerOptions {
  logger: Logger
  /** Asked before every scheduled run; the local, always-leader one by default. */
  leader?: CronLeader
  /** The timezone of the expressions; UTC by default (PocketBase's). */
  timezone?: string
}

interface Job {
  id: string
  expression: string
  source: CronSource
  fn: CronJobFn
  /** croner's timer, while the scheduler is started. */
  timer: Cron | null
}

/**
 * The app's scheduler on croner: one timer per job while started (unref'd, so it never keeps the
 * process alive), overlap-safe per job id (a run still going makes the next tick or `runNow` a
 * no-op), every failure logged with the job id, and the {@link CronLeader} asked before each
 * scheduled run.
 */
export class CronScheduler implements AppCron {
  private readonly jobs = new Map<string, Job>()
  /** The run going for each job id; a replaced or removed job's run stays here until it ends. */
  private readonly running = new Map<string, Promise<boolean>>()
  private readonly logger: Logger
  private readonly leader: CronLeader
  private readonly timezone: string
  private isStarted = false
  private observers: CronObserver[] = []

  constructor(options: CronSchedulerOptions) {
    this.logger = options.logger
    this.leader = options.leader ?? localLeader
    this.timezone = options.timezone ?? 'UTC'
  }

  get started(): boolean {
    return this.isStarted
  }

  add(id: string, expression: string, fn: CronJobFn, options: CronAddOptions = {}): void {
    if (id === '') throw new Error('a cron job needs an id')
    // Parsed now, so a bad expression fails here rather than at start (no function: no timer).
    new Cron(expression, this.zone())
    const old = this.jobs.get(id)
    old?.timer?.stop()
    const job: Job = { id, expression, source: options.source ?? 'system', fn, timer: null }
    this.jobs.set(id, job)
    if (this.isStarted) this.schedule(job)
    this.notify((o) => o.added?.(this.info(job)))
  }

  remove(id: string): boolean {
    const job = this.jobs.get(id)
    if (!job) return false
    job.timer?.stop()
    this.jobs.delete(id)
    this.notify((o) => o.removed?.(id))
    return true
  }

  list(): CronJobInfo[] {
    return [...this.jobs.values()]
      .map((j) => this.info(j))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }

  observe(observer: CronObserver): () => void {
    this.observers = [...this.observers, observer]
    return () => {
      this.observers = this.observers.filter((o) => o !== observer)
    }
  }

  private info(j: Job): CronJobInfo {
    return { id: j.id, expression: j.expression, source: j.source, running: this.running.has(j.id) }
  }

  /** Tells every observer; a throwing observer is logged and never disturbs the scheduler. */
  private notify(fn: (o: CronObserver) => void): void {
    for (const o of this.observers) {
      try {
        fn(o)
      } catch (err) {
        this.logger.error('cron observer failed', { error: String(err) })
      }
    }
  }

  runNow(id: string): Promise<boolean> {
    const job = this.jobs.get(id)
    if (!job) return Promise.reject(new Error(`unknown cron job "${id}"`))
    return this.execute(job, null)
  }

  start(): void {
    if (this.isStarted) return
    this.isStarted = true
    for (const job of this.jobs.values()) this.schedule(job)
  }

  async stop(): Promise<void> {
    this.isStarted = false
    for (const job of this.jobs.values()) {
      job.timer?.stop()
      job.timer = null
    }
    // NB: the runs going may still use the database; the app closes it only after they end.
    await Promise.all(this.running.values())
  }

  /**
   * croner's time zone options. NB: UTC as a fixed offset: croner computes a named zone's times
   * through `toLocaleString`, which loads ICU's time zone data into the process (~4 MB resident
   * for good, measured); an offset of 0 is plain UTC arithmetic.
   */
  private zone(): { timezone: string } | { utcOffset: number } {
    return this.timezone === 'UTC' ? { utcOffset: 0 } : { timezone: this.timezone }
  }

  private schedule(job: Job): void {
    // NB: no croner `name`: named jobs live in a process-wide list and would clash across apps.
    job.timer = new Cron(job.expression, { ...this.zone(), unref: true }, (self) => {
      // NB: the tick is its second. With a UTC offset croner gives the moment its timer fired
      // (some milliseconds late), and instances sharing the data claim a tick by this value
      // (the cluster's leader): it must be the same on every one of them.
      const fired = (self.currentRun() ?? new Date()).getTime()
      void this.execute(job, new Date(Math.floor(fired / 1000) * 1000))
    })
  }

  /** Starts a run unless one of the same id is going; `scheduledAt` null for `runNow`. */
  private execute(job: Job, scheduledAt: Date | null): Promise<boolean> {
    if (this.running.has(job.id)) {
      if (scheduledAt) this.logger.warn('cron job still running: run skipped', { job: job.id })
      return Promise.resolve(false)
    }
    const run: Promise<boolean> = this.attempt(job, scheduledAt).finally(() => {
      if (this.running.get(job.id) === run) this.running.delete(job.id)
    })
    this.running.set(job.id, run)
    return run
  }

  /** One run: the leader asked (scheduled runs only), then the job; never rejects. */
  private async attempt(job: Job, scheduledAt: Date | null): Promise<boolean> {
    if (scheduledAt) {
      try {
        if (!(await this.leader.claim(job.id, scheduledAt))) return false
      } catch (err) {
        this.logger.error('cron leader check failed', { job: job.id, error: String(err) })
        return false
      }
    }
    const startedAt = new Date()
    let error: string | null = null
    try {
      await job.fn()
    } catch (err) {
      this.logger.error('cron job failed', { job: job.id, error: String(err) })
      error = err instanceof Error ? err.message : String(err)
    }
    this.notify((o) => o.ran?.(job.id, { startedAt, error }))
    return true
  }
}
