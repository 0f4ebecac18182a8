/**
 * Files with several instances (issue 17 part 4): instances on several machines sharing one
 * database (the PostgreSQL cluster: `app.cluster.spansMachines`) cannot keep files on their own
 * local disks, since each would see only its own. So, while more than one instance runs:
 *
 * - an instance refuses to serve when `settings.s3` is not enabled (checked at `onServe`, after
 *   the cluster started and announced this instance);
 * - `PATCH /api/settings` may not turn `s3.enabled` off (400).
 *
 * `serve --workers` on SQLite shares one data folder, local storage included: not concerned.
 */
import type { App } from '../../core/app.js'
import { badRequest } from '../../core/errors.js'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requireSuperuser } from '../../http/guards.js'
import { requestInfo, routeUrl } from '../../http/request-info.js'
import { storageMessages } from './messages.js'

/**
 * How many places (machines and data folders) the instances sharing the data keep local files
 * in now, or 1 when that cannot be more (a process alone, `serve --workers` on SQLite).
 */
async function machinesSharing(app: App): Promise<number> {
  const cluster = app.cluster
  if (!cluster.shared || cluster.spansMachines !== true) return 1
  return cluster.livePlaces ? cluster.livePlaces() : cluster.liveInstances()
}

/** Throws when this instance would serve local files while other instances share the data. */
export async function checkSharedStorage(app: App): Promise<void> {
  if (app.settings.get().s3.enabled) return
  const count = await machinesSharing(app)
  if (count > 1) throw new Error(storageMessages.storageLocalShared({ count }))
}

/** True when a settings patch body turns S3 off. */
function turnsS3Off(body: unknown): boolean {
  if (!body || typeof body !== 'object') return false
  const s3 = (body as Record<string, unknown>).s3
  return !!s3 && typeof s3 === 'object' && (s3 as Record<string, unknown>).enabled === false
}

/** Refuses `PATCH /api/settings` turning S3 off while other instances share the data. */
export function guardSettingsPatch(app: App, http: FastifyInstance): void {
  const guard = async (req: FastifyRequest): Promise<void> => {
    if (!turnsS3Off(req.body) || !app.settings.get().s3.enabled) return
    // The route's own answer for anyone else (401/403), never this one.
    requireSuperuser(requestInfo(req))
    const count = await machinesSharing(app)
    if (count > 1) throw badRequest(storageMessages.storageS3Required({ count }))
  }
  // NB: a callback hook: every other request passes without a promise.
  http.addHook('preHandler', (req, _reply, done) => {
    if (req.method !== 'PATCH' || routeUrl(req) !== '/api/settings') return done()
    guard(req).then(() => done(), done)
  })
}
