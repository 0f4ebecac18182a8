import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../../core/app.js'
import { ApiError, messages } from '../../../core/errors.js'
import { featureHook } from '../../../core/hooks-features.js'
import { requestEvent, triggerRequest } from '../../../core/request-event.js'
import { openEventStream } from '../../../http/event-stream.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import { hooked, sendMessage } from '../hooks.js'
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
 * A client IP (as `trustedProxy` resolves it) holding `connections.maxRealtimePerIP` open streams
 * of this instance gets 429 instead. The opening runs inside `onRealtimeConnectRequest`.
 */
export function registerConnect(app: App, http: FastifyInstance, hub: RealtimeHub): void {
  /** Opens the stream of client `id`: its connect messages go through `onRealtimeMessageSend`. */
  const open = (req: FastifyRequest, reply: FastifyReply, ip: string, id: string): void => {
    const res = openEventStream(req, reply)
    if (!res) return
    const client = hub.connect(res, ip, id)
    res.on('close', () => hub.disconnect(client))
    if (req.raw.socket.destroyed) hub.disconnect(client)
    client.enqueue(async () => {
      await sendMessage(app, client, CONNECT_EVENT, { clientId: client.id })
      await sendMessage(app, client, SDK_CONNECT_EVENT, { clientId: client.id })
    })
  }
  http.get('/api/realtime', async (req, reply) => {
    const ip = req.svcIp || req.ip
    const max = app.settings.get().connections.maxRealtimePerIP
    if (max > 0 && hub.streamsFrom(ip) >= max)
      throw new ApiError(429, messages.realtimeTooManyStreams)
    const id = hub.newId()
    if (!hooked(app, 'onRealtimeConnectRequest')) return open(req, reply, ip, id)
    // The opening inside `onRealtimeConnectRequest` (../hooks.ts).
    let opened = false
    const client = { id, subscriptions: new Map(), closed: false }
    const answer = await triggerRequest(
      featureHook(app, 'onRealtimeConnectRequest')!,
      requestEvent(app, requestInfo(req), { client }),
      () => {
        opened = true
        open(req, reply, ip, id)
      },
    )
    if (!opened) return sendHookResponse(reply, answer)
  })
}
