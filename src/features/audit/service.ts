import { AsyncLocalStorage } from 'node:async_hooks'
import type { ServerResponse } from 'node:http'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join as joinPath } from 'node:path'
import type { App } from '../../core/app.js'
import type { Collection } from '../../core/collections/model.js'
import type { RequestInfo } from '../../core/request-info.js'
import type { Db } from '../../store/db.js'
import { ident, join, sql } from '../../store/sql.js'
import { formatDate } from '../../tools/dates.js'
import { sortableId } from '../../tools/ids.js'

/** The audit log's collection. */
export const AUDIT_LOG = '_audit_log'

/** The id of the retention job on `app.cron`. */
export const AUDIT_CLEANUP_JOB_ID = '__svcAuditCleanup__'

/** When the retention job runs: every hour, on the hour (UTC). */
export const AUDIT_CLEANUP_EXPRESSION = '0 * * * *'

/**
 * Collections whose record changes are not audited: the log itself, request logs, and
 * high-churn internal tables whose meaning is audited elsewhere (`_otps`/`_mfas` are steps of a
 * sign-in, which gets its own row; `_cron_jobs` mirrors the scheduler), plus any outbox table.
 */
const NOT_AUDITED = new Set([AUDIT_LOG, '_logs', '_cron_jobs', '_otps', '_mfas'])

/** True when record changes of `collection` get audit rows. */
export function isAudited(collection: Collection): boolean {
  return !NOT_AUDITED.has(collection.name) && !collection.name.toLowerCase().includes('outbox')
}

/** Who did it and from where; empty strings for system changes. */
export interface Actor {
  actorCollection: string
  actorId: string
  ip: string
}

/** The actor of a system change (a job, the CLI, a script without a request). */
export const SYSTEM_ACTOR: Actor = { actorCollection: '', actorId: '', ip: '' }

/** The actor of a request. */
export function actorOf(info: RequestInfo | null | undefined): Actor {
  if (!info) return SYSTEM_ACTOR
  return {
    actorCollection: info.auth?.collection.name ?? '',
    actorId: typeof info.auth?.record.id === 'string' ? info.auth.record.id : '',
    ip: info.ip,
  }
}

/** One audit row as written. */
export interface AuditEntry {
  /** `record.create|update|delete`, `collection.create|update|delete`, `settings.update`, `backup.create|delete`, `auth.signin`. */
  action: string
  collection: string
  recordId: string
  actor: Actor
}

/**
 * The audit log of one app. The request behind a change that carries no `RequestInfo` (a
 * collection or settings change) is found through `requests`, an async context entered, once
 * its auth and client IP are known, by every HTTP request that may make such a change (not reads,
 * not the record routes: a hook script changing a collection during those records the system
 * actor).
 */
export class AuditLog {
  readonly requests = new AsyncLocalStorage<Actor>()
  /** Requests inside `requests` whose response has not closed yet. */
  private active = 0

  constructor(private readonly app: App) {}

  /**
   * Runs `next` (the rest of a request's handling) with `actor` as the current actor, until
   * `res` closes. NB: while any AsyncLocalStorage is enabled, Node 20 runs a hook for every
   * promise of the process; the context is disabled again once no request is inside it, so
   * the reads and record writes that never enter it pay nothing.
   */
  enter(actor: Actor, res: ServerResponse, next: () => void): void {
    this.active++
    res.once('close', () => {
      if (--this.active === 0) this.requests.disable()
    })
    this.requests.run(actor, next)
  }

  /** The actor of the request being handled, or the system actor. */
  currentActor(): Actor {
    return this.requests.getStore() ?? SYSTEM_ACTOR
  }

  /**
   * Inserts one row through `app` (the transactional app of the change, so a rollback takes the
   * row with it), or through the given database handle (a settings save's transaction). Inside a
   * transaction whose engine offers `runLater`, the row goes with the transaction's next
   * statement or its commit (on PostgreSQL in the same round trip): nothing reads its result,
   * every later statement of the transaction still sees it, and its failure fails the change.
   */
  async write(app: App, entry: AuditEntry, db?: Db): Promise<void> {
    const collection = app.collections.find(AUDIT_LOG)
    if (!collection) return
    const at = Date.now()
    const now = formatDate(new Date(at))
    const values: Record<string, string> = {
      // NB: ids in time order (of `created`), so each row appends to the primary key's index: a
      // random id put one more random page of it in every group commit of a busy server's writes.
      id: sortableId(at),
      action: entry.action,
      collection: entry.collection,
      recordId: entry.recordId,
      actorCollection: entry.actor.actorCollection,
      actorId: entry.actor.actorId,
      ip: entry.actor.ip,
      created: now,
      updated: now,
    }
    const names = Object.keys(values)
    const target = db ?? app.dbFor(collection)
    const insert = sql`INSERT INTO ${ident(collection.name)} (${join(names.map((n) => ident(n)))})
          VALUES (${join(names.map((n) => sql`${values[n]}`))})`
    if (target.inTransaction && target.runLater) target.runLater(insert)
    else await target.run(insert)
  }

  /**
   * Installs the engine's guard against UPDATE and DELETE of the log (idempotent), through `app`
   * (the transactional app of a schema change that rebuilt the table, or the app itself).
   */
  async guard(app: App = this.app): Promise<void> {
    const collection = app.collections.find(AUDIT_LOG)
    const appendOnly = app.db.dialect.appendOnly
    if (!collection || !appendOnly) return
    const db = app.dbFor(collection)
    for (const statement of appendOnly.guard(collection.name)) await db.run(statement)
    db.resetStatements()
  }

  /**
   * Deletes the rows older than `settings.audit.maxDays` days before `now` (none with 0, which
   * keeps them forever); returns how many.
   */
  async cleanup(now: Date = new Date()): Promise<number> {
    const days = this.app.settings.get().audit.maxDays
    const collection = this.app.collections.find(AUDIT_LOG)
    const appendOnly = this.app.db.dialect.appendOnly
    if (days <= 0 || !collection || !appendOnly) return 0
    const cutoff = formatDate(new Date(now.getTime() - days * 86_400_000))
    return appendOnly.prune(this.app.dbFor(collection), collection.name, cutoff)
  }
}

/**
 * Where a restore's row waits for the restarted app: in `.svc_tmp/` of the data directory, the
 * one place (with `backups/`) a restore's data swap leaves in place.
 */
const RESTORE_MARK = joinPath('.svc_tmp', 'audit-restore.json')

/** What a restore leaves for the restarted app. */
interface RestoreMark {
  key: string
  actor: Actor
  /** The newest audit row id of the data the restore replaces. */
  lastId: string
}

/**
 * The newest audit row id, or ''. Rows created in the same millisecond are told apart by their
 * physical order where the engine has one (SQLite's rowid), else by id: either way the same data
 * answers the same id, which is all a restore's mark compares.
 */
async function lastRowId(app: App): Promise<string> {
  const collection = app.collections.find(AUDIT_LOG)
  if (!collection) return ''
  const db = app.dbFor(collection)
  const tie = db.dialect.rowid(collection.name) ?? ident('id')
  const row = await db.get<{ id: string }>(
    sql`SELECT id FROM ${ident(collection.name)} ORDER BY created DESC, ${tie} DESC LIMIT 1`,
  )
  return row?.id ?? ''
}

/** Notes a restore about to run: the restarted app writes its row (see `writeRestoreRow`). */
export async function markRestore(app: App, key: string, actor: Actor): Promise<void> {
  const mark: RestoreMark = { key, actor, lastId: await lastRowId(app) }
  mkdirSync(joinPath(app.config.dataDir, '.svc_tmp'), { recursive: true })
  writeFileSync(joinPath(app.config.dataDir, RESTORE_MARK), JSON.stringify(mark))
}

/**
 * At start: when a restore left its mark, writes `backup.restore` into the restored data, or
 * `backup.restoreFailed` when the data is still the one the restore meant to replace (the
 * restored data could not start and the old data was put back).
 */
export async function writeRestoreRow(app: App, audit: AuditLog): Promise<void> {
  const file = joinPath(app.config.dataDir, RESTORE_MARK)
  let mark: RestoreMark
  try {
    mark = JSON.parse(readFileSync(file, 'utf8')) as RestoreMark
  } catch {
    return
  }
  rmSync(file, { force: true })
  const same = mark.lastId !== '' && (await lastRowId(app)) === mark.lastId
  await audit.write(app, {
    action: same ? 'backup.restoreFailed' : 'backup.restore',
    collection: '',
    recordId: typeof mark.key === 'string' ? mark.key : '',
    actor: mark.actor,
  })
}
