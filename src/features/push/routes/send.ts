import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { badRequest } from '../../../core/errors.js'
import { readBody } from '../../../http/body.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { readSendBody } from '../send-body.js'
import type { PushService } from '../service.js'
import { pushMessages } from '../messages.js'

/**
 * `POST /api/push/send` (superuser) `{title, body, data?, recordRef?, collectionRef?, platform?}` → 200
 * `{sent, failed}` once every send ended; 400 with field errors for bad input.
 */
export function registerSendRoute(app: App, http: FastifyInstance, push: PushService): void {
  http.post('/api/push/send', async (req) => {
    requireSuperuser(requestInfo(req))
    const { values } = await readBody(req).catch((err: unknown) => {
      throw badRequest(pushMessages.pushSendFailed, {}, err)
    })
    const { msg, filter } = readSendBody(values, (idOrName) => {
      const c = app.collections.find(idOrName)
      return c?.type === 'auth' ? c.id : undefined
    })
    return push.send(msg, filter)
  })
}
