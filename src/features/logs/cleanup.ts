import type { App } from '../../core/app.js'
import { ident, sql } from '../../store/sql.js'
import { formatDate } from '../../tools/dates.js'

/** The id of the retention job (SPEC §2.7: it always exists). */
export const CLEANUP_JOB_ID = '__svcLogsCleanup__'

/** When the retention job runs: every hour, on the hour (UTC). */
export const CLEANUP_EXPRESSION = '0 * * * *'

/** Rows deleted per statement, so a large purge never holds the writer for long. */
const DELETE_CHUNK = 5000

/**
 * Deletes the `_logs` rows older than `settings.logs.maxDays` days before `now` (with `maxDays` 0,
 * which stores nothing, every row older than `now`). Returns the number of rows deleted.
 */
export async function cleanupLogs(app: App, now: Date = new Date()): Promise<number> {
  const collection = app.collections.find('_logs')
  if (!collection) return 0
  const db = app.dbFor(collection)
  const days = Math.max(0, app.settings.get().logs.maxDays)
  const cutoff = formatDate(new Date(now.getTime() - days * 86_400_000))
  const table = ident(collection.name)
  let total = 0
  for (;;) {
    const { changes } = await db.run(
      sql`DELETE FROM ${table} WHERE ${ident('id')} IN (SELECT ${ident('id')} FROM ${table} WHERE ${ident('created')} < ${cutoff} LIMIT ${DELETE_CHUNK})`,
    )
    total += changes
    if (changes < DELETE_CHUNK) return total
    // NB: SQLite writes are synchronous; let requests run between chunks.
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * Adds the retention job to the app's scheduler (`app.cron`: UTC, runs never overlap, a failure
 * is logged with the job id). It runs while the app serves.
 */
export function addCleanupJob(app: App): void {
  app.cron.add(CLEANUP_JOB_ID, CLEANUP_EXPRESSION, async () => {
    const deleted = await cleanupLogs(app)
    if (deleted > 0) app.logger.info('old request logs deleted', { deleted })
  })
}
