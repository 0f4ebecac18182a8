/**
 * `_cron_jobs` as a mirror of the scheduler (SPEC §2.6): one row per registered job (`jobId`,
 * `expression`, `source`) with the outcome of its last run (`lastRun`, `lastStatus`,
 * `lastError`). The scheduler tells the mirror about every change and run (`app.cron.observe`);
 * the mirror writes in the background, coalesced: at most one transaction per `minIntervalMs`,
 * writing only the rows that differ from the scheduler. Rows go through the record service as
 * the system (no rules, no request hooks), so realtime subscribers see them change. A failed
 * write is logged and never fails a job.
 */
import { ident, join, sql } from '../../store/sql.js'
import { formatDate } from '../../tools/dates.js'
import type { App } from '../app.js'
import { systemRequest } from '../auth/superusers.js'
import type { RecordData } from '../request-info.js'
import type { CronRunResult } from './types.js'

/** The collection mirrored. */
export const CRON_JOBS_COLLECTION = '_cron_jobs'

/** `lastStatus` after a run that ended normally, after one that threw, and before any run. */
export const CRON_STATUS = { success: 'success', error: 'error', never: '' } as const

/** The columns the mirror reads. */
const COLUMNS = ['id', 'jobId', 'expression', 'source', 'lastRun', 'lastStatus', 'lastError']

/** `lastError` is cut to this many characters. */
const MAX_ERROR_LENGTH = 2000

interface RunState {
  lastRun: string
  lastStatus: string
  lastError: string
}

/** Options of a {@link CronMirror}. */
export interface CronMirrorOptions {
  /** The least time between two writes (milliseconds); 1000 by default. */
  minIntervalMs?: number
}

/** Keeps `_cron_jobs` in step with `app.cron` while started (the app serving). */
export class CronMirror {
  /** Run outcomes not written yet, by job id (the latest only). */
  private readonly pending = new Map<string, RunState>()
  private readonly minIntervalMs: number
  private unobserve: (() => void) | null = null
  private active = false
  private dirty = true
  private timer: NodeJS.Timeout | null = null
  private lastWrite = 0
  private writing: Promise<void> = Promise.resolve()

  constructor(
    private readonly app: App,
    options: CronMirrorOptions = {},
  ) {
    this.minIntervalMs = options.minIntervalMs ?? 1000
    this.unobserve = app.cron.observe({
      added: () => this.changed(),
      removed: () => this.changed(),
      ran: (id, result) => this.ran(id, result),
    })
  }

  /** Starts writing: the table is brought in step now (rows of jobs gone since are removed). */
  async start(): Promise<void> {
    this.active = true
    this.dirty = true
    await this.flush()
  }

  /** Writes what is pending, then stops writing (the store is about to close). */
  async stop(): Promise<void> {
    await this.flush()
    this.active = false
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  /** Stops observing the scheduler for good. */
  dispose(): void {
    this.unobserve?.()
    this.unobserve = null
    this.active = false
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  /** Writes every pending change now (after the writes already going); never rejects. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.writing = this.writing.then(() => this.write())
    return this.writing
  }

  private changed(): void {
    this.dirty = true
    this.schedule()
  }

  private ran(id: string, result: CronRunResult): void {
    this.pending.set(id, {
      lastRun: formatDate(result.startedAt),
      lastStatus: result.error === null ? CRON_STATUS.success : CRON_STATUS.error,
      lastError: (result.error ?? '').slice(0, MAX_ERROR_LENGTH),
    })
    this.schedule()
  }

  /** A write after `minIntervalMs` since the last one, unless one is already planned. */
  private schedule(): void {
    if (!this.active || this.timer) return
    const wait = Math.max(0, this.lastWrite + this.minIntervalMs - Date.now())
    this.timer = setTimeout(() => {
      this.timer = null
      void this.flush()
    }, wait)
    this.timer.unref()
  }

  private async write(): Promise<void> {
    if (!this.active || !this.app.isBootstrapped) return
    if (!this.dirty && this.pending.size === 0) return
    const c = this.app.collections.find(CRON_JOBS_COLLECTION)
    if (!c) return
    const runs = new Map(this.pending)
    this.pending.clear()
    this.dirty = false
    this.lastWrite = Date.now()
    try {
      await this.app.runInTransaction(async (tx) => {
        const su = systemRequest(tx)
        const jobs = new Map(tx.cron.list().map((j) => [j.id, j]))
        const rows = await tx
          .dbFor(c)
          .all<RecordData>(sql`SELECT ${join(COLUMNS.map((n) => ident(n)))} FROM ${ident(c.name)}`)
        const seen = new Set<string>()
        for (const row of rows) {
          const id = String(row.jobId)
          const job = jobs.get(id)
          if (!job || seen.has(id)) {
            await tx.records.delete(c, String(row.id), su)
            continue
          }
          seen.add(id)
          const want = { expression: job.expression, source: job.source, ...runs.get(id) }
          const patch = differing(row, want)
          if (patch) await tx.records.update(c, String(row.id), patch, su)
        }
        for (const job of jobs.values()) {
          if (seen.has(job.id)) continue
          const run = runs.get(job.id)
          await tx.records.create(
            c,
            {
              jobId: job.id,
              expression: job.expression,
              source: job.source,
              lastRun: run?.lastRun ?? '',
              lastStatus: run?.lastStatus ?? CRON_STATUS.never,
              lastError: run?.lastError ?? '',
            },
            su,
          )
        }
      })
    } catch (err) {
      // Kept for the next write: a newer outcome of the same job replaces it.
      for (const [id, run] of runs) if (!this.pending.has(id)) this.pending.set(id, run)
      this.dirty = true
      this.app.logger.error('cron jobs mirror failed', { error: String(err) })
    }
  }
}

/** The keys of `want` whose value differs in `row`, or null when none does. */
function differing(row: RecordData, want: Record<string, unknown>): Record<string, unknown> | null {
  const patch: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(want)) if (row[k] !== v) patch[k] = v
  return Object.keys(patch).length ? patch : null
}
