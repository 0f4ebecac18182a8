import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { badRequest, messages } from '../../../core/errors.js'
import { readBody } from '../../../http/body.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { sendTestEmail } from '../test-email.js'

/**
 * `POST /api/settings/test/email` (superuser): 204 once the test email was handed to the
 * backend, 400 for bad input or a failed send.
 */
export function registerTestEmail(app: App, http: FastifyInstance): void {
  http.post('/api/settings/test/email', async (req, reply) => {
    requireSuperuser(requestInfo(req))
    const { values } = await readBody(req).catch((err: unknown) => {
      throw badRequest(messages.loadFailed, {}, err)
    })
    await sendTestEmail(app, values)
    return reply.code(204).send()
  })
}
