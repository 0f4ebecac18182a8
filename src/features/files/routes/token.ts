import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { signToken } from '../../../core/auth/tokens.js'
import { featureHook } from '../../../core/hooks-features.js'
import { requestEvent, triggerRequest } from '../../../core/request-event.js'
import { requireAuth } from '../../../http/guards.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'

/**
 * `POST /api/files/token`: a short-lived file token for the authenticated record, answered
 * inside `onFileTokenRequest` (../hooks.ts) when the feature's family is there.
 */
export function registerFileToken(app: App, http: FastifyInstance): void {
  http.post('/api/files/token', async (req, reply) => {
    const info = requestInfo(req)
    requireAuth(info)
    const { record, collection } = info.auth!
    const token = await signToken(collection, record, 'file')
    const hook = featureHook(app, 'onFileTokenRequest')
    if (!hook?.length) return { token }
    const event = requestEvent(app, info, {
      collection: null,
      record,
      recordCollection: collection,
      token,
    })
    // NB: no tags, as PocketBase's event has no collection: a tagged handler never runs.
    const answer = await triggerRequest(hook, event, (e) => e.json(200, { token: e.token }))
    return sendHookResponse(reply, answer)
  })
}
