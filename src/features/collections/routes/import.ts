import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { importRequest } from '../../../core/collections/request-hooks.js'
import { messages } from '../../../core/errors.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { objectBody, superuserInfo } from '../request.js'

/**
 * `PUT /api/collections/import` (superuser): `{collections, deleteMissing}` through the
 * `onCollectionsImportRequest` hook.
 */
export function registerImport(app: App, http: FastifyInstance): void {
  http.put('/api/collections/import', async (req, reply) => {
    const info = superuserInfo(req)
    const body = await objectBody(req, messages.formatLoadFailed)
    const deleteMissing = body.deleteMissing === true || body.deleteMissing === 'true'
    return sendHookResponse(reply, await importRequest(app, body.collections, deleteMissing, info))
  })
}
