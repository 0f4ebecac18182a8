import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import type { CronMirror } from '../../../core/cron/mirror.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { listJobs, runJob } from '../service.js'

/**
 * The crons API of reference §7, superuser only (401 without a token, 403 for other records):
 * `GET /api/crons` → `[{id, expression}]`; `POST /api/crons/{id}` runs one now → 204.
 */
export function registerRoutes(app: App, http: FastifyInstance, mirror: CronMirror): void {
  http.get('/api/crons', async (req) => {
    requireSuperuser(requestInfo(req))
    return listJobs(app)
  })

  http.post<{ Params: { id: string } }>('/api/crons/:id', async (req, reply) => {
    requireSuperuser(requestInfo(req))
    await runJob(app, mirror, req.params.id)
    return reply.code(204).send()
  })
}
