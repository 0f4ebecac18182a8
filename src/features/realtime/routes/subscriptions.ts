import type { FastifyInstance } from 'fastify'
import { badRequest, forbidden, messages, notFound } from '../../../core/errors.js'
import type { AuthInfo } from '../../../core/request-info.js'
import type { RealtimeHub } from '../hub.js'
import { parseSubscribeForm } from '../subscriptions.js'

/** True when two auth states name the same record (guests are equal to each other). */
function sameAuth(a: AuthInfo | null, b: AuthInfo | null): boolean {
  if (!a || !b) return a === b
  return a.collection.id === b.collection.id && String(a.record.id) === String(b.record.id)
}

/**
 * `POST /api/realtime` `{clientId, subscriptions}` → 204 (reference §4.2): replaces the
 * client's subscriptions and binds this request's auth to it. Errors: 400 for a malformed body
 * or a request from another IP than the stream's, 404 for an unknown or closed client, 403 when
 * the client is already bound to another auth record (a guest may upgrade, never switch back).
 */
export function registerSubscriptions(http: FastifyInstance, hub: RealtimeHub): void {
  http.post('/api/realtime', async (req, reply) => {
    const form = parseSubscribeForm(req.body)
    const client = hub.get(form.clientId)
    if (!client || client.closed) throw notFound(messages.realtimeClientMissing)
    if (client.ip !== (req.svcIp || req.ip)) throw badRequest(messages.realtimeClientInvalid)
    const auth = req.svcAuth
    if (client.auth && !sameAuth(client.auth, auth)) {
      throw forbidden(messages.realtimeAuthMismatch)
    }
    client.auth = auth
    hub.subscribe(client, form.subscriptions)
    return reply.code(204).send()
  })
}
