import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { applyRequest } from '../service.js'

/**
 * `POST /api/schema/apply?dryRun=1&force=1` (superuser): the body is a bare array of collection
 * inputs, `{collections: [...]}` or `{items: [...]}`; answers 200 `{applied, force, collections}`.
 */
export function registerApply(app: App, http: FastifyInstance): void {
  http.post('/api/schema/apply', async (req) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    // A multipart or urlencoded body is not a payload: it reads as the wrong shape (400).
    const body: unknown = req.isMultipart() ? undefined : req.body
    return applyRequest(app, body, info.query)
  })
}
