/**
 * Audit rows of backups, bound to the backups feature's hooks (`onBackupCreate`,
 * `onBackupDelete`, `onBackupRestore`): the API's and the automatic job's alike, with the actor
 * of the request that asked (`e.requestInfo`; the system actor for the job). Each handler runs
 * innermost, right around the action, so a row means the action ran: a handler of a hook
 * script that skipped it leaves none.
 */
import type { App } from '../../core/app.js'
import { featureHook } from '../../core/hooks-features.js'
import type { RequestInfo } from '../../core/request-info.js'
import { actorOf, markRestore, SYSTEM_ACTOR, type AuditLog } from './service.js'

/** After every other handler: the audit handlers wrap the action alone. */
const AROUND_ACTION = Number.MAX_SAFE_INTEGER

const actorFrom = (info: RequestInfo | null) => (info ? actorOf(info) : SYSTEM_ACTOR)

/** Binds the backup rows; nothing while the backups feature is off. */
export function bindBackups(app: App, audit: AuditLog): void {
  // Backups are no database change: a row once the action succeeded, and a failed row write
  // fails nothing (the archive is made or gone either way).
  const row = (e: { app: App; requestInfo: RequestInfo | null }, action: string, key: string) =>
    audit
      .write(e.app, { action, collection: '', recordId: key, actor: actorFrom(e.requestInfo) })
      .catch((err: unknown) => e.app.logger.error('audit: backup row not written', { err }))

  featureHook(app, 'onBackupCreate')?.bind({
    id: '__svcAuditBackupCreate__',
    priority: AROUND_ACTION,
    func: async (e) => {
      await e.next()
      if (e.name !== '') await row(e, 'backup.create', e.name)
    },
  })
  featureHook(app, 'onBackupDelete')?.bind({
    id: '__svcAuditBackupDelete__',
    priority: AROUND_ACTION,
    func: async (e) => {
      await e.next()
      await row(e, 'backup.delete', e.name)
    },
  })
  // The restart swaps the data: the restored app writes the row (`writeRestoreRow`) from the
  // mark left here, or `backup.restoreFailed` when the old data came back.
  featureHook(app, 'onBackupRestore')?.bind({
    id: '__svcAuditBackupRestore__',
    priority: AROUND_ACTION,
    func: async (e) => {
      await markRestore(e.app, e.name, actorFrom(e.requestInfo))
      await e.next()
    },
  })
}
