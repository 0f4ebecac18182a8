import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { authResponse } from '../../../core/auth/flow.js'
import { forbidden, messages } from '../../../core/errors.js'
import { SUPERUSERS } from '../../../core/request-info.js'
import { readBody } from '../../../http/body.js'
import { requestInfo } from '../../../http/request-info.js'
import { createFirstSuperuser, isLoopback, needsSetup, sameSecret } from '../service.js'

/**
 * `GET /api/setup/status` and `POST /api/setup` (DECISIONS "Setup"): a client that is not on a
 * loopback address must send the one-time `setupToken`.
 */
export function registerSetup(app: App, http: FastifyInstance, setupToken: string): void {
  http.get('/api/setup/status', async () => ({ needsSetup: await needsSetup(app) }))

  http.post('/api/setup', async (req) => {
    const { values } = await readBody(req)
    if (!isLoopback(req.ip)) {
      const token = typeof values.token === 'string' ? values.token : ''
      if (!sameSecret(token, setupToken)) throw forbidden(messages.setupTokenRequired)
    }
    const record = await createFirstSuperuser(app, values)
    return authResponse(app, app.collections.get(SUPERUSERS), record, requestInfo(req))
  })
}
