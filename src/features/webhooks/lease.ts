/**
 * Taking outbox rows once across instances. Several instances on one database (PostgreSQL, or
 * `serve --workers` on one SQLite file) read the same due rows; before sending, an instance
 * takes the rows it is about to start with ONE conditional UPDATE that sets their `leaseUntil`
 * only where no live lease is held, and sends only the rows that UPDATE returned. The statement
 * is atomic on both engines (SQLite serialises writers; PostgreSQL re-checks the condition on
 * the row version a concurrent taker committed), so a row is sent by one instance at a time.
 *
 * The outcome clears the lease (a retry reschedules `nextAttemptAt`; a delivered row is
 * deleted). An instance that crashes mid-delivery leaves its lease, which expires after the
 * webhook timeout plus {@link LEASE_MARGIN_MS}: another instance then sends the row again
 * (at-least-once, with the same `webhook-id`). An instance alone at start clears every lease
 * at once: nobody else can be holding one.
 */
import type { App } from '../../core/app.js'
import { join, sql } from '../../store/sql.js'
import { formatDate } from '../../tools/dates.js'
import { LEASE_UNTIL, NEXT_AT } from './columns.js'

/** Added to the delivery timeout: the time an outcome takes to be stored, with room to spare. */
export const LEASE_MARGIN_MS = 30_000

/** The condition of a row nobody holds at `at`. */
export const unleased = (at: string) =>
  sql`(${LEASE_UNTIL} IS NULL OR ${LEASE_UNTIL} = '' OR ${LEASE_UNTIL} <= ${at})`

/**
 * Takes the rows among `rows` that are still due and that no other instance holds, for
 * `leaseMs`; returns their ids with their current attempt counts (a row another instance
 * retried meanwhile has a new one). One statement, in a transaction (so it runs on the writer).
 * A process alone on its data (`app.cluster.shared` false) takes them all without writing.
 */
export async function takeRows(
  app: App,
  rows: readonly { id: string; attempts: number }[],
  leaseMs: number,
): Promise<Map<string, number>> {
  const taken = new Map<string, number>()
  if (rows.length === 0) return taken
  if (!app.cluster.shared) {
    for (const r of rows) taken.set(r.id, Number(r.attempts))
    return taken
  }
  const rowIds = rows.map((r) => r.id)
  const now = new Date()
  const at = formatDate(now)
  const until = formatDate(new Date(now.getTime() + leaseMs))
  const ids = join(rowIds.map((id) => sql`${id}`))
  const got = await app.runInTransaction((tx) =>
    tx.db.all<{ id: string; attempts: number }>(
      sql`UPDATE _webhook_outbox SET ${LEASE_UNTIL} = ${until} WHERE id IN (${ids}) AND ${NEXT_AT} <= ${at} AND ${unleased(at)} RETURNING id, attempts`,
    ),
  )
  for (const r of got) taken.set(String(r.id), Number(r.attempts))
  return taken
}

/**
 * Clears every lease when this instance is alone on the data (a restart after a crash sends
 * the rows it was sending at once, not after their lease).
 */
export async function releaseOrphanLeases(app: App): Promise<void> {
  const live = app.cluster.shared ? await app.cluster.liveInstances() : 1
  if (live > 1) return
  await app.runInTransaction((tx) =>
    tx.db.run(sql`UPDATE _webhook_outbox SET ${LEASE_UNTIL} = '' WHERE ${LEASE_UNTIL} <> ''`),
  )
}
