/**
 * The contract of the app's scheduler (`app.cron`) and of the leader seam it asks before each
 * scheduled run. The implementation (croner underneath) is in `scheduler.ts`.
 */

/** The work of a job; a thrown error or rejection is logged with the job id. */
export type CronJobFn = () => void | Promise<void>

/** Who added a job: svcbase itself and features (`system`) or a hook script (`hooks`). */
export type CronSource = 'system' | 'hooks'

/** Options of {@link AppCron.add}. */
export interface CronAddOptions {
  /** `system` by default; hook scripts add theirs as `hooks`. Shown in `_cron_jobs`. */
  source?: CronSource
}

/** A scheduled job as `list()` shows it. */
export interface CronJobInfo {
  id: string
  /** A cron expression (5 fields, or 6 with seconds first) or a macro such as `@hourly`. */
  expression: string
  source: CronSource
  /** True while a run of this job is going. */
  running: boolean
}

/** How a run ended, as observers see it. */
export interface CronRunResult {
  /** When the run started. */
  startedAt: Date
  /** The error's message when the job threw or rejected, else null. */
  error: string | null
}

/**
 * Told about every change of the scheduler's jobs and every run that ended (scheduled or run
 * now), synchronously: an observer must not throw and must not block (queue the work).
 */
export interface CronObserver {
  /** A job was added or replaced. */
  added?(job: CronJobInfo): void
  /** A job was removed. */
  removed?(id: string): void
  /** A run of a job ended. */
  ran?(id: string, result: CronRunResult): void
}

/**
 * Decides which instance runs a scheduled job when several share one database. Asked before
 * every scheduled run; only the instance that gets `true` runs it. The local implementation
 * ({@link localLeader}) always says yes; a shared one (a lock row, PG advisory lock) would claim
 * the run `(jobId, scheduledAt)` once across instances.
 */
export interface CronLeader {
  /** True when this instance should run `jobId`'s run scheduled at `scheduledAt`. */
  claim(jobId: string, scheduledAt: Date): boolean | Promise<boolean>
}

/**
 * The one scheduler of an app: system jobs, hook-script jobs and the backup job all live here.
 * Jobs are definitions that outlive `stop()`/`start()`, so an app can restart in-process.
 * Runs never overlap: while a job's run is going, its next tick (or a `runNow`) is skipped.
 */
export interface AppCron {
  /**
   * Adds a job, or replaces the one with the same id (its running run, if any, finishes).
   * Throws on an invalid expression. Scheduled at once if the scheduler is started.
   */
  add(id: string, expression: string, fn: CronJobFn, options?: CronAddOptions): void
  /** Removes a job; false when there is none with this id. */
  remove(id: string): boolean
  /** The jobs, sorted by id. */
  list(): CronJobInfo[]
  /**
   * Runs a job now, outside its schedule, on this instance (the leader is not asked: this is an
   * explicit request). Resolves once the run ends: true when it ran (even if it failed, which is
   * logged), false when it was skipped because a run is still going. Throws for an unknown id.
   */
  runNow(id: string): Promise<boolean>
  /** Adds an observer of job changes and runs; returns the function that removes it. */
  observe(observer: CronObserver): () => void
  /** True between `start()` and `stop()`. */
  readonly started: boolean
  /** Starts the timers of every job (the app does so in `onServe`). */
  start(): void
  /** Stops the timers and resolves once every running run has ended. */
  stop(): Promise<void>
}
