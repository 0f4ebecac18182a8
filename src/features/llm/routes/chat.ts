import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { readBody } from '../../../http/body.js'
import { requireAuth } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { chat, checkChat, SHUTDOWN } from '../service.js'
import type { UsageLog } from '../usage.js'

/**
 * `POST /api/llm/chat` `{messages, collection?, clientId?}` (SPEC §4.11), any authenticated
 * record (an API key too) → `{reply, promptTokens, completionTokens, requestId, record?}`. 401
 * for a guest, 400 with field errors for a bad body, 404 for a `clientId` that is not the
 * caller's open realtime connection, 502 when the provider fails, 504 past `llm.timeout`. The
 * caller closing the request aborts the provider call; so does the server closing (503), so a
 * stalled provider never holds up a shutdown or a restart.
 */
export function registerChat(app: App, http: FastifyInstance, usage: UsageLog): void {
  const inflight = new Set<AbortController>()
  http.addHook('preClose', async () => {
    for (const c of inflight) c.abort(SHUTDOWN)
  })
  http.post('/api/llm/chat', async (req, reply) => {
    const info = requestInfo(req)
    requireAuth(info)
    const auth = info.auth!
    const { values } = await readBody(req)
    const request = checkChat(app, values)
    // The response closing before it was sent means the caller went away.
    const caller = new AbortController()
    const onClose = () => {
      if (!reply.raw.writableFinished) caller.abort()
    }
    reply.raw.once('close', onClose)
    inflight.add(caller)
    try {
      return await chat({ app, usage, info: { ...info, auth }, signal: caller.signal }, request)
    } finally {
      inflight.delete(caller)
      reply.raw.off('close', onClose)
    }
  })
}
