/**
 * The cluster's tables in the store's schema and the one statement each use runs:
 *
 * - `_svc_bus(id, at, body)`: messages too big for a NOTIFY payload, pruned after a few minutes;
 * - `_svc_cron_claims(job, at, instance)`: one row per scheduled run, inserted by the instance
 *   that runs it (the primary key makes the insert succeed once);
 * - `_svc_rate_counters(key, count, reset_at, window_ms)`: fixed-window counters, one upsert per
 *   hit;
 * - `_svc_instances(id, seen, place, label)`: the heartbeat of each running instance (its label,
 *   host and pid, names it in warnings).
 *
 * Times are epoch milliseconds of the database's clock, so instances with skewed clocks agree.
 */
import type { SharedCounterHit } from '../cluster.js'
import { UniqueViolation } from '../db.js'
import { ident, sql } from '../sql.js'
import { LISTENER_PREFIX, NOW_MS } from './bus.js'
import type { PgDb } from './database.js'

/** How often an instance refreshes its heartbeat. */
export const HEARTBEAT_MS = 5000
/** An instance whose heartbeat is older than this is not counted as alive. */
export const LIVE_MS = 15_000
/** How long big bus messages are kept for their receivers. */
const BUS_KEEP_MS = 5 * 60_000
/** How long claims of past runs are kept. */
const CLAIMS_KEEP_MS = 60 * 60_000

/**
 * Creates the tables when missing. Several instances may start at once: an advisory lock of
 * the transaction makes them take turns, so `CREATE … IF NOT EXISTS` never races.
 */
export async function createClusterTables(db: PgDb, schema: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run(sql`SELECT pg_advisory_xact_lock(hashtext(${`svc_cluster_tables:${schema}`}))`)
    // NB: the store may be creating the schema at the same moment (another lock): both may try.
    await tx.run(sql`SAVEPOINT svc_schema`)
    try {
      await tx.run(sql`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`)
    } catch (err) {
      if (!(err instanceof UniqueViolation)) throw err
      await tx.run(sql`ROLLBACK TO SAVEPOINT svc_schema`)
    }
    await tx.run(sql`CREATE TABLE IF NOT EXISTS _svc_bus (
      id BIGSERIAL PRIMARY KEY, at BIGINT NOT NULL, body TEXT NOT NULL)`)
    await tx.run(sql`CREATE TABLE IF NOT EXISTS _svc_cron_claims (
      job TEXT NOT NULL, at BIGINT NOT NULL, instance TEXT NOT NULL,
      claimed BIGINT NOT NULL, PRIMARY KEY (job, at))`)
    await tx.run(sql`CREATE TABLE IF NOT EXISTS _svc_rate_counters (
      key TEXT PRIMARY KEY, count INTEGER NOT NULL, reset_at BIGINT NOT NULL)`)
    // NB: added later; a row from before it (0) simply ends its window one window later at most.
    await tx.run(sql`ALTER TABLE _svc_rate_counters
      ADD COLUMN IF NOT EXISTS window_ms BIGINT NOT NULL DEFAULT 0`)
    await tx.run(sql`CREATE TABLE IF NOT EXISTS _svc_instances (
      id TEXT PRIMARY KEY, seen BIGINT NOT NULL, place TEXT NOT NULL DEFAULT '')`)
    await tx.run(
      sql`ALTER TABLE _svc_instances ADD COLUMN IF NOT EXISTS place TEXT NOT NULL DEFAULT ''`,
    )
    await tx.run(
      sql`ALTER TABLE _svc_instances ADD COLUMN IF NOT EXISTS label TEXT NOT NULL DEFAULT ''`,
    )
  })
}

/** True for the one instance whose insert of (job, tick) went in. */
export async function claimRun(
  db: PgDb,
  jobId: string,
  scheduledAt: Date,
  instanceId: string,
): Promise<boolean> {
  const r = await db.run(sql`INSERT INTO _svc_cron_claims (job, at, instance, claimed)
    VALUES (${jobId}, ${scheduledAt.getTime()}, ${instanceId}, ${NOW_MS})
    ON CONFLICT (job, at) DO NOTHING`)
  return r.changes === 1
}

/**
 * One hit on a fixed-window counter, atomically: a new key or an expired window starts at 1,
 * else the count grows by one. A single upsert, so concurrent hits from any instance each get
 * their own count. As in the in-memory store, the window length in force now decides expiry: a
 * window runs from its start (`reset_at - window_ms`, the length it was last hit with) for
 * `windowMs`, so a shortened duration in the settings ends a running window at once.
 */
export async function hitCounter(
  db: PgDb,
  key: string,
  windowMs: number,
): Promise<SharedCounterHit> {
  const window = Math.max(1, Math.round(windowMs))
  const end = sql`c.reset_at - c.window_ms + ${window}::bigint`
  const row = await db.get<{ count: number; reset_at: number }>(sql`
    INSERT INTO _svc_rate_counters AS c (key, count, reset_at, window_ms)
    VALUES (${key}, 1, ${NOW_MS} + ${window}::bigint, ${window}::bigint)
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN ${end} <= ${NOW_MS} THEN 1 ELSE c.count + 1 END,
      reset_at = CASE WHEN ${end} <= ${NOW_MS} THEN ${NOW_MS} + ${window}::bigint ELSE ${end} END,
      window_ms = ${window}::bigint
    RETURNING count, reset_at`)
  return { count: row!.count, resetAt: row!.reset_at }
}

/** Forgets every counter. */
export async function resetCounters(db: PgDb): Promise<void> {
  await db.run(sql`DELETE FROM _svc_rate_counters`)
}

/**
 * Records that `instanceId` (keeping its local files at `place`, named `label` in warnings) is
 * alive now.
 */
export async function heartbeat(
  db: PgDb,
  instanceId: string,
  place: string,
  label = '',
): Promise<void> {
  await db.run(sql`INSERT INTO _svc_instances (id, seen, place, label)
    VALUES (${instanceId}, ${NOW_MS}, ${place}, ${label})
    ON CONFLICT (id) DO UPDATE SET seen = excluded.seen, place = excluded.place,
      label = excluded.label`)
}

/** Removes an instance's heartbeat (at close). */
export async function dropInstance(db: PgDb, instanceId: string): Promise<void> {
  await db.run(sql`DELETE FROM _svc_instances WHERE id = ${instanceId}`)
}

/**
 * The instances alive now, this one included: a heartbeat within {@link LIVE_MS} and the
 * instance's listener connected (`pg_stat_activity`), so an instance killed a moment ago stops
 * counting as soon as the server dropped its connections, not a heartbeat period later.
 */
export async function countLive(db: PgDb, self: string): Promise<number> {
  const row = await db.get<{ n: number }>(
    sql`SELECT count(*) AS n FROM _svc_instances i WHERE ${alive(self)}`,
  )
  return row?.n ?? 0
}

/** An instance as warnings name it. */
export interface LiveInstance {
  id: string
  label: string
}

/** The other instances alive now (see {@link countLive}), `self` left out. */
export async function liveOthers(db: PgDb, self: string): Promise<LiveInstance[]> {
  return db.all<LiveInstance>(sql`SELECT i.id, i.label FROM _svc_instances i
    WHERE i.id <> ${self} AND ${alive(self)} ORDER BY i.id`)
}

/**
 * The distinct places of the instances alive now: instances with the same non-empty `place`
 * share their local files and count once; an instance without one counts alone.
 */
export async function countPlaces(db: PgDb, self: string): Promise<number> {
  const row = await db.get<{ n: number }>(sql`SELECT count(DISTINCT
      CASE WHEN i.place = '' THEN 'id:' || i.id ELSE 'place:' || i.place END) AS n
    FROM _svc_instances i WHERE ${alive(self)}`)
  return row?.n ?? 0
}

/** The condition of a live instance row `i` (see {@link countLive}). */
function alive(self: string) {
  return sql`i.seen > ${NOW_MS} - ${LIVE_MS}::bigint
    AND (i.id = ${self} OR EXISTS (SELECT 1 FROM pg_stat_activity a
      WHERE a.datname = current_database() AND a.application_name = ${LISTENER_PREFIX} || i.id))`
}

/** Deletes what nobody needs any more: old big messages, claims, expired counters, dead instances. */
export async function prune(db: PgDb): Promise<void> {
  await db.run(sql`DELETE FROM _svc_bus WHERE at < ${NOW_MS} - ${BUS_KEEP_MS}::bigint`)
  await db.run(sql`DELETE FROM _svc_cron_claims WHERE at < ${NOW_MS} - ${CLAIMS_KEEP_MS}::bigint`)
  await db.run(sql`DELETE FROM _svc_rate_counters WHERE reset_at < ${NOW_MS}`)
  await db.run(sql`DELETE FROM _svc_instances WHERE seen < ${NOW_MS} - ${CLAIMS_KEEP_MS}::bigint`)
}
