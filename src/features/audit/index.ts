import { forbidden } from '../../core/errors.js'
import { SUPERUSERS } from '../../core/request-info.js'
import type { Feature } from '../../http/feature.js'
import { routeUrl } from '../../http/request-info.js'
import { bindBackups } from './backups.js'
import { auditSettings } from './settings.js'
import {
  actorOf,
  AUDIT_CLEANUP_EXPRESSION,
  AUDIT_CLEANUP_JOB_ID,
  AUDIT_LOG,
  AuditLog,
  isAudited,
  writeRestoreRow,
  type Actor,
} from './service.js'
import { auditMessages } from './messages.js'
import { auditCollections } from './collections.js'

export { AUDIT_CLEANUP_JOB_ID, AUDIT_LOG, AuditLog } from './service.js'

declare module '../../core/services.js' {
  interface AppServices {
    /** The audit log (set by `features/audit`). */
    audit: AuditLog
  }
}

/** A record's id as text ('' when it has none). */
const idOf = (record: Record<string, unknown>): string =>
  typeof record.id === 'string' ? record.id : ''

type Verb = 'create' | 'update' | 'delete'
const VERBS: readonly Verb[] = ['create', 'update', 'delete']
const upper = (v: Verb) => `${v[0]!.toUpperCase()}${v.slice(1)}` as Capitalize<Verb>

/** The collections API's truncate route. */
const TRUNCATE_ROUTE = '/api/collections/:collection/truncate'

/** Routes of records, sign-ins, batches and realtime: their changes carry their RequestInfo. */
const RECORD_ROUTE = /^\/api\/collections\/:collection\/(?!truncate$)|^\/api\/(?:batch|realtime)$/

/**
 * Whether a request may change a collection or the settings, which carry no RequestInfo: every
 * request but reads and the record routes, whose record changes carry it. Only those enter the
 * actor's async context: while one is active, Node tracks every promise of the process.
 */
function changesSchemaOrSettings(method: string, route: string): boolean {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return false
  return !RECORD_ROUTE.test(route)
}

/**
 * The audit log (DECISIONS "Audit log"): one `_audit_log` row per record, collection and
 * settings change, written in the transaction of the change (a rollback leaves no row), one per
 * backup created or deleted and one per successful sign-in. The records API refuses every write
 * to the log, the engine refuses UPDATE and DELETE of its rows on every connection, and the job
 * `__svcAuditCleanup__` deletes rows older than `settings.audit.maxDays`.
 */
export function auditFeature(): Feature {
  return {
    name: 'audit',
    systemCollections: auditCollections,
    messages: auditMessages,
    register: ({ app, http }) => {
      const audit = new AuditLog(app)
      app.services.set('audit', audit)
      app.registerSettingsGroup(auditSettings)

      // The actor of changes that carry no RequestInfo (collections, settings): the request's.
      // NB: a callback hook, so the route handler runs inside the context entered here.
      http.addHook('preHandler', (req, reply, done) => {
        const route = routeUrl(req)
        if (!changesSchemaOrSettings(req.method, route)) return done()
        const actor: Actor = {
          actorCollection: req.svcAuth?.collection.name ?? '',
          actorId: typeof req.svcAuth?.record.id === 'string' ? req.svcAuth.record.id : '',
          ip: req.svcIp || req.ip,
        }
        // Truncating runs no record hook: refused here, for the superusers it is open to.
        if (
          route === TRUNCATE_ROUTE &&
          req.svcAuth?.collection.name === SUPERUSERS &&
          app.collections.find((req.params as { collection: string }).collection)?.name ===
            AUDIT_LOG
        )
          return done(forbidden(auditMessages.auditLogAppendOnly))
        audit.enter(actor, reply.raw, done)
      })

      for (const verb of VERBS) {
        const V = upper(verb)
        app.hooks[`onRecord${V}`].bind({
          id: `__svcAuditRecord${V}__`,
          func: async (e) => {
            await e.next()
            if (!isAudited(e.collection)) return
            await audit.write(e.app, {
              action: `record.${verb}`,
              collection: e.collection.name,
              recordId: idOf(e.record),
              actor: actorOf(e.request),
            })
          },
        })
        app.hooks[`onCollection${V}`].bind({
          id: `__svcAuditCollection${V}__`,
          func: async (e) => {
            await e.next()
            // A schema change may rebuild the log's table, which drops its triggers.
            if (verb === 'update' && e.collection.name === AUDIT_LOG) await audit.guard(e.app)
            await audit.write(e.app, {
              action: `collection.${verb}`,
              collection: e.collection.name,
              recordId: e.collection.id,
              actor: audit.currentActor(),
            })
          },
        })
        // Rows are written by svcbase only: the records API (and so batch) refuses every write.
        app.hooks[`onRecord${V}Request`].bind(
          {
            id: `__svcAuditRefuse${V}__`,
            func: () => {
              throw forbidden(auditMessages.auditLogAppendOnly)
            },
          },
          [AUDIT_LOG],
        )
      }

      app.hooks.onRecordAuthRequest.bind({
        id: '__svcAuditSignIn__',
        func: async (e) => {
          await e.next()
          // A token renewal (auth-refresh answers with no auth method) is no sign-in.
          if (e.authMethod === '') return
          const info = e.requestInfo
          // An impersonation is done by the caller; any other sign-in by the record itself.
          const actor = info.auth
            ? actorOf(info)
            : {
                actorCollection: e.collection.name,
                actorId: idOf(e.record),
                ip: info.ip,
              }
          await audit.write(e.app, {
            action: 'auth.signin',
            collection: e.collection.name,
            recordId: idOf(e.record),
            actor,
          })
        },
      })

      bindBackups(app, audit)

      let offSettings = (): void => undefined
      app.hooks.onBootstrap.bind({
        id: '__svcAuditBootstrap__',
        func: async (e) => {
          await e.next()
          await audit.guard()
          await writeRestoreRow(app, audit)
          offSettings = app.settings.onSave(async (tx) => {
            await audit.write(
              app,
              {
                action: 'settings.update',
                collection: '',
                recordId: '',
                actor: audit.currentActor(),
              },
              tx,
            )
          })
        },
      })
      app.hooks.onTerminate.bind({
        id: '__svcAuditTerminate__',
        func: async (e) => {
          offSettings()
          await e.next()
        },
      })

      app.cron.add(AUDIT_CLEANUP_JOB_ID, AUDIT_CLEANUP_EXPRESSION, async () => {
        const deleted = await audit.cleanup()
        if (deleted > 0) app.logger.info('old audit rows deleted', { deleted })
      })
    },
  }
}
