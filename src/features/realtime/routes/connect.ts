import type { FastifyInstance } from 'fastify'
import { openEventStream } from '../../../http/event-stream.js'
import type { RealtimeHub } from '../hub.js'

/** The name of the first event on every stream (DECISIONS: `SVC_CONNECT`, not `PB_CONNECT`). */
export const CONNECT_EVENT = 'SVC_CONNECT'

/**
 * Sent right after `SVC_CONNECT` with the same data: the official `pocketbase` SDK waits for
 * this name before it subscribes, and SPEC only fixes which event comes first.
 */
export const SDK_CONNECT_EVENT = 'PB_CONNECT'

/**
 * `GET /api/realtime`: opens the SSE stream (reference §4.1). The response is taken over from
 * Fastify; the headers set by earlier hooks (CORS, security) are kept. The first message is
 * `SVC_CONNECT` with `{clientId}`; the client is forgotten as soon as the stream closes. The
 * Authorization header of this request is not used: auth binds through `POST /api/realtime`.
 */
export function registerConnect(http: FastifyInstance, hub: RealtimeHub): void {
  http.get('/api/realtime', (req, reply) => {
    const res = openEventStream(req, reply)
    if (!res) return
    const client = hub.connect(res, req.svcIp || req.ip)
    res.on('close', () => hub.disconnect(client))
    client.send(CONNECT_EVENT, { clientId: client.id })
    client.send(SDK_CONNECT_EVENT, { clientId: client.id })
  })
}
