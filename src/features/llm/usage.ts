/**
 * The token usage of each gateway call, kept for operators in `_llm_usage` (auxiliary
 * database): rows queue in memory and are inserted in one transaction per batch shortly after
 * the answer, so a chat never waits for this write.
 */
import type { App } from '../../core/app.js'
import type { RecordData } from '../../core/request-info.js'
import { getFieldType } from '../../core/fields/registry.js'
import { ident, join, param, sql, type Sql } from '../../store/sql.js'
import { nowDate } from '../../tools/dates.js'
import { sortableId } from '../../tools/ids.js'

/** The system collection of usage rows. */
export const USAGE_COLLECTION = '_llm_usage'

/** One call's usage. */
export interface UsageEntry {
  authCollection: string
  authId: string
  provider: string
  model: string
  promptTokens: number
  completionTokens: number
  durationMs: number
  ok: boolean
  error: string
}

/** Rows per INSERT statement. */
const ROWS_PER_INSERT = 100
/** Rows held at most; beyond it new rows are dropped (and the drop logged). */
const MAX_QUEUE = 10_000
/** Milliseconds between the first queued row and its write. */
const FLUSH_DELAY = 100

/** Queues usage rows and writes them in batches (see the module comment). */
export class UsageLog {
  private queue: RecordData[] = []
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> | null = null
  private dropped = 0

  constructor(private readonly app: App) {}

  /** Queues one row; written within about {@link FLUSH_DELAY} ms. */
  add(entry: UsageEntry): void {
    if (this.queue.length >= MAX_QUEUE) {
      this.dropped++
      return
    }
    const now = nowDate()
    this.queue.push({ id: sortableId(), ...entry, created: now, updated: now })
    if (!this.timer && !this.running) {
      this.timer = setTimeout(() => {
        this.timer = null
        void this.flush()
      }, FLUSH_DELAY)
      this.timer.unref()
    }
  }

  /** Writes everything queued; resolves once stored (or logged as failed). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    while (this.running || this.queue.length > 0) {
      if (this.running) {
        await this.running
        continue
      }
      const batch = this.queue.splice(0, this.queue.length)
      this.running = this.write(batch).finally(() => {
        this.running = null
      })
    }
    if (this.dropped > 0) {
      this.app.logger.warn('LLM usage queue full: rows dropped', { dropped: this.dropped })
      this.dropped = 0
    }
  }

  private async write(rows: RecordData[]): Promise<void> {
    const collection = this.app.collections.find(USAGE_COLLECTION)
    try {
      if (!collection) throw new Error(`the ${USAGE_COLLECTION} collection is missing`)
      const fields = collection.fields
      const columns = join(fields.map((f) => ident(f.name)))
      const tuple = (r: RecordData): Sql =>
        sql`(${join(fields.map((f) => param(getFieldType(f.type)!.toDb(r[f.name] ?? null, f))))})`
      await this.app.dbFor(collection).transaction(async (tx) => {
        for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
          const values = join(rows.slice(i, i + ROWS_PER_INSERT).map(tuple))
          await tx.run(sql`INSERT INTO ${ident(collection.name)} (${columns}) VALUES ${values}`)
        }
      })
    } catch (err) {
      this.app.logger.error('writing LLM usage failed', { rows: rows.length, error: String(err) })
    }
  }
}
