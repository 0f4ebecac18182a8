/**
 * The delivery worker of the outbox: picks due `_webhook_outbox` rows, POSTs them through the
 * SSRF guard with a bound per URL and overall, deletes a row on 2xx (or when given up) and
 * reschedules it with exponential backoff and jitter otherwise, writing each attempt's outcome to
 * its `_webhooks` row. It runs between `onServe` and `onTerminate`, on its own timer, never in
 * the request that made the change.
 */
import type http from 'node:http'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { App } from '../../core/app.js'
import { join, param, sql } from '../../store/sql.js'
import { formatDate } from '../../tools/dates.js'
import { sendOnce, type DueRow, type Outcome } from './attempt.js'
import { LEASE_MARGIN_MS, releaseOrphanLeases, takeRows, unleased } from './lease.js'
import { LAST_ATTEMPT_AT, LAST_ERROR, LAST_STATUS, LEASE_UNTIL, NEXT_AT } from './columns.js'

/** Internal knobs (tests); none is a setting. */
export interface DelivererOptions {
  /** The first retry's delay; each later one doubles it (default 42 s: 12 attempts ≈ 24 h). */
  backoffBaseMs?: number
  /** Deliveries in flight to one URL (default 2). */
  perUrl?: number
  /** Deliveries in flight overall (default 32). */
  concurrency?: number
  /** Addresses the SSRF guard lets through although private (tests only). */
  allowAddresses?: readonly string[]
}

/** The longest sleep between passes when nothing is due sooner. */
const IDLE_MS = 60_000
/** Rows read per pass. */
const PASS_ROWS = 500

/**
 * Pacing while writes are queueing deliveries (one did in the last `WRITES_WINDOW_MS`): a pass
 * starts at most `PACED_STARTS` deliveries and passes come at most every `PACED_PAUSE_MS`, so at
 * most 400 deliveries a second take CPU from the requests making the changes; the rest wait in
 * the outbox and go at full speed once the writes ease.
 */
const WRITES_WINDOW_MS = 100
const PACED_STARTS = 8
const PACED_PAUSE_MS = 20

/** How long outcomes gather before they are stored together, in ms. */
const FLUSH_MS = 5

/**
 * Tries at storing a batch of outcomes, and the pause before the n-th retry (n × this, in ms).
 * NB: a batch not stored leaves its rows leased until the lease runs out (the delivery timeout
 * plus 30 s); with several instances on PostgreSQL a transaction can keep conflicting with the
 * other instances' (serialization failures on the outbox and the webhook's row), so a failed
 * store is tried again rather than left to the lease.
 */
const STORE_TRIES = 6
const STORE_RETRY_MS = 50

export { BACKOFF_BASE_MS, backoffDelay } from './backoff.js'

export class Deliverer {
  private running = false
  private passing = false
  private again = false
  private timer: NodeJS.Timeout | undefined
  /** The pass asked for and not begun yet (an immediate, or a timer while paced). */
  private scheduled: (() => void) | undefined
  /** When a commit last queued deliveries, and when the last pass began (performance.now()). */
  private lastWriteAt = -Infinity
  private lastPassAt = -Infinity
  private readonly inflight = new Map<string, Promise<void>>()
  private readonly perUrl = new Map<string, number>()
  private readonly agents = new Map<string, http.Agent>()
  /** Due rows read, not started yet (oldest first). */
  private queue: DueRow[] = []
  /** Whether the outbox may hold due rows not in `queue`. */
  private reread = true
  /**
   * The time of the last read: rows due by then were read (or were in flight). A row due later
   * (a retry) is found by `arm`, which wakes a pass that reads again when its time has come.
   */
  private readUpTo = ''
  private pass: Promise<void> | undefined
  private outcomes: Outcome[] = []
  private flushing: Promise<void> | undefined

  /**
   * @param onDisabled called after a 410 disabled a webhook (the targets cache forgets it)
   */
  constructor(
    private readonly app: App,
    private readonly onDisabled: () => void,
    private readonly options: DelivererOptions = {},
  ) {}

  /** Starts delivering (at `onServe`): rows left from before a stop or crash go out first. */
  start(): void {
    this.running = true
    // Alone on the data: leases left by a crash are ours to clear (lease.ts).
    void releaseOrphanLeases(this.app)
      .catch((err: unknown) => {
        this.app.logger.error('webhook leases could not be cleared', { error: String(err) })
      })
      .finally(() => this.wake(true))
  }

  /** Stops: no new attempt starts; those in flight end (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.running = false
    clearTimeout(this.timer)
    this.scheduled?.()
    this.timer = undefined
    this.scheduled = undefined
    this.queue = []
    await this.pass
    await Promise.allSettled([...this.inflight.values()])
    for (const agent of this.agents.values()) agent.destroy()
    this.agents.clear()
  }

  /**
   * Asks for a pass soon. `reread`: the outbox may hold due rows not read yet (a commit queued
   * deliveries, a retry fell due, the worker started); a delivery's end only starts the rows
   * already read.
   */
  wake(reread = false): void {
    if (reread) this.reread = true
    if (!this.running) return
    if (this.passing) {
      this.again = true
      return
    }
    if (this.scheduled) return
    const wait = this.paced() ? this.lastPassAt + PACED_PAUSE_MS - performance.now() : 0
    const go = () => {
      this.scheduled = undefined
      this.pass = this.run().catch((err: unknown) => {
        this.app.logger.error('webhook delivery pass failed', { error: String(err) })
      })
    }
    if (wait > 0) {
      const timer = setTimeout(go, wait)
      timer.unref()
      this.scheduled = () => clearTimeout(timer)
    } else {
      const immediate = setImmediate(go)
      this.scheduled = () => clearImmediate(immediate)
    }
  }

  /** A commit queued deliveries: read them soon, paced while such writes keep coming. */
  queued(): void {
    this.lastWriteAt = performance.now()
    this.wake(true)
  }

  private paced(): boolean {
    return performance.now() - this.lastWriteAt < WRITES_WINDOW_MS
  }

  /**
   * The `_webhooks` rows changed: the rows read but not started are read again, so none goes out
   * with an old URL or secret, or for a webhook disabled since.
   */
  forget(): void {
    this.queue = []
    this.wake(true)
  }

  private async run(): Promise<void> {
    if (!this.running || !this.app.isBootstrapped) return
    this.passing = true
    try {
      // A wake during the pass or while arming runs another pass (none is lost).
      do {
        this.again = false
        await this.startDue()
        if (!this.again) await this.arm()
      } while (this.again && this.running && !this.paced())
    } finally {
      this.passing = false
    }
    // Paced: the next pass waits its turn on a timer.
    if (this.again && this.running) {
      this.again = false
      this.wake()
    }
  }

  /**
   * Reads due rows (with their bodies and webhooks) when the rows read are running low and the
   * outbox may hold more, then starts as many as the bounds allow. Reading only at the low-water
   * mark keeps a backlog of thousands from being read again at every delivery's end.
   */
  private async startDue(): Promise<void> {
    const max = this.options.concurrency ?? 32
    if (this.reread && this.queue.length < max) {
      this.reread = false
      const now = formatDate(new Date())
      this.readUpTo = now
      const rows = await this.app.db.all<DueRow>(
        sql`SELECT o.id AS id, o.body AS body, o.attempts AS attempts, o.webhook AS webhook, w.url AS url, w.secret AS secret, w.enabled AS enabled FROM _webhook_outbox o LEFT JOIN _webhooks w ON w.id = o.webhook WHERE o.${NEXT_AT} <= ${now} AND ${unleased(now)} ORDER BY o.${NEXT_AT} LIMIT ${PASS_ROWS}`,
      )
      const known = new Set([...this.inflight.keys(), ...this.queue.map((r) => r.id)])
      for (const row of rows) if (!known.has(row.id)) this.queue.push(row)
      // A full page: more may be due behind it, read once these run low.
      if (rows.length === PASS_ROWS) this.reread = true
    }
    const perUrl = this.options.perUrl ?? 2
    this.lastPassAt = performance.now()
    let starts = this.paced() ? PACED_STARTS : Infinity
    const waiting: DueRow[] = []
    const picked: DueRow[] = []
    for (const row of this.queue) {
      const full = this.inflight.size + picked.length >= max
      if (!this.running || full || starts <= 0 || this.inflight.has(row.id)) {
        if (!this.inflight.has(row.id)) waiting.push(row)
        continue
      }
      const key = row.url ?? ''
      const busy = this.perUrl.get(key) ?? 0
      if (busy >= perUrl && row.url !== null) {
        waiting.push(row)
        continue
      }
      this.perUrl.set(key, busy + 1)
      starts--
      picked.push(row)
    }
    this.queue = waiting
    // Paced: the rows left wait for the next pass, not for a delivery's end.
    if (starts <= 0 && waiting.length > 0) this.again = true
    // Only the rows this instance took go out (another instance may be sending the others).
    const leaseMs = this.app.settings.get().webhooks.timeout * 1000 + LEASE_MARGIN_MS
    const taken = await takeRows(this.app, picked, leaseMs).catch((err: unknown) => {
      this.app.logger.error('webhook rows could not be taken', { error: String(err) })
      return new Map<string, number>()
    })
    for (const row of picked) this.begin(row, taken.get(row.id))
  }

  /** Starts a picked row's delivery when it was taken (`attempts` known), else frees its slot. */
  private begin(row: DueRow, attempts: number | undefined): void {
    const key = row.url ?? ''
    let held = true
    // The URL's slot is freed once the exchange ended; the row stays in flight until stored.
    const release = () => {
      if (!held) return
      held = false
      const n = (this.perUrl.get(key) ?? 1) - 1
      if (n <= 0) this.perUrl.delete(key)
      else this.perUrl.set(key, n)
      this.wake()
    }
    if (attempts === undefined) return release()
    // NB: `stop` awaits the pass, then what is in flight: a row taken is always sent.
    // NB: a retry is read again. Its time is set when the attempt ends and stored a little later
    // (batched outcomes, a busy writer); a pass that read the outbox in between (the row still
    // leased) moved `readUpTo` past a short backoff, so `arm` would not wait for the row and no
    // pass would read it before the next commit or the idle minute.
    let retry = false
    const job = this.deliver({ ...row, attempts }, release)
      .then((retried) => {
        retry = retried
      })
      .catch((err: unknown) => {
        this.app.logger.error('webhook delivery failed', { id: row.id, error: String(err) })
      })
      .finally(() => {
        this.inflight.delete(row.id)
        release()
        this.wake(retry)
      })
    this.inflight.set(row.id, job)
  }

  /** Sleeps until the next row not read yet is due (at most a minute). */
  private async arm(): Promise<void> {
    if (!this.running) return
    clearTimeout(this.timer)
    // A row due later, or held by another instance whose lease runs out (it crashed). NB: a
    // process alone holds no lease of another (its own are cleared at start), and the lease
    // subquery reads every row of the outbox: with 45 000 rows pending it took 88 % of the event
    // loop under creates with webhooks (bench/NOTES.md section 10).
    const now = formatDate(new Date())
    const lease = this.app.cluster.shared
      ? sql`(SELECT MIN(${LEASE_UNTIL}) FROM _webhook_outbox WHERE ${LEASE_UNTIL} > ${now})`
      : sql`NULL`
    const next = await this.app.db.get<{ next: string | null; lease: string | null }>(
      sql`SELECT MIN(${NEXT_AT}) AS next, ${lease} AS lease FROM _webhook_outbox WHERE ${NEXT_AT} > ${this.readUpTo}`,
    )
    const times = [next?.next, next?.lease].map((t) => (t ? Date.parse(t.replace(' ', 'T')) : NaN))
    const at = Math.min(...times.filter((t) => !Number.isNaN(t)))
    const wait = !Number.isFinite(at) ? IDLE_MS : Math.min(IDLE_MS, Math.max(5, at - Date.now()))
    if (!this.running) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.wake(true)
    }, wait)
    this.timer.unref()
  }

  /** One attempt of one delivery, and its outcome stored; true when a retry is due later. */
  private async deliver(row: DueRow, release: () => void): Promise<boolean> {
    const id = row.id
    // The webhook was deleted or disabled since: the delivery is dropped.
    if (row.url === null || !row.enabled) {
      release()
      const at = formatDate(new Date())
      const drop = { id, webhook: '', done: true, next: at, at, status: '', error: '', attempt: 0 }
      await this.store({ ...drop, gone: false, silent: true })
      return false
    }
    const outcome = await sendOnce(this.app, row, row.url, {
      backoffBaseMs: this.options.backoffBaseMs,
      allowAddresses: this.options.allowAddresses,
      agents: this.agents,
    })
    release()
    await this.store(outcome)
    return !outcome.done
  }

  /**
   * Stores an attempt's outcome. Outcomes that end close together share one transaction (the
   * writer is shared with the requests); each webhook row gets the latest of its outcomes.
   */
  private store(outcome: Outcome): Promise<void> {
    this.outcomes.push(outcome)
    if (!this.flushing) {
      this.flushing = new Promise<void>((resolve) => setTimeout(resolve, FLUSH_MS)).then(() =>
        this.flush(),
      )
    }
    return this.flushing
  }

  private async flush(): Promise<void> {
    const batch = this.outcomes
    this.outcomes = []
    this.flushing = undefined
    for (let tries = 1; ; tries++) {
      try {
        return await this.write(batch)
      } catch (err) {
        if (tries >= STORE_TRIES) throw err
        this.app.logger.warn('webhook outcomes not stored yet, trying again', {
          outcomes: batch.length,
          error: String(err),
        })
        await sleep(STORE_RETRY_MS * tries)
      }
    }
  }

  /** One transaction storing `batch` (nothing of it stays when it fails). */
  private async write(batch: readonly Outcome[]): Promise<void> {
    const latest = new Map<string, Outcome>()
    for (const o of batch) if (!o.silent) latest.set(o.webhook, o)
    const done = batch.filter((o) => o.done).map((o) => param(o.id))
    await this.app.runInTransaction(async (tx) => {
      // A webhook disabled by a 410 is forgotten by the matching as the change commits.
      if (batch.some((o) => o.gone)) tx.onAfterCommit(() => this.onDisabled())
      if (done.length > 0)
        await tx.db.run(sql`DELETE FROM _webhook_outbox WHERE id IN (${join(done)})`)
      for (const o of batch.filter((b) => !b.done))
        await tx.db.run(
          sql`UPDATE _webhook_outbox SET attempts = ${o.attempt}, ${NEXT_AT} = ${o.next}, ${LEASE_UNTIL} = '', updated = ${o.at} WHERE id = ${o.id}`,
        )
      for (const o of latest.values())
        await tx.db.run(
          sql`UPDATE _webhooks SET ${LAST_STATUS} = ${o.status}, ${LAST_ERROR} = ${o.error}, ${LAST_ATTEMPT_AT} = ${o.at}, attempts = ${o.attempt}${o.gone ? sql`, enabled = FALSE` : sql``} WHERE id = ${o.webhook}`,
        )
    })
  }
}
