import type { FastifyReply } from 'fastify'
import type { HookResponse } from '../core/request-event.js'

/**
 * Sends the answer a request hook left (see `core/request-event.ts`): an object body goes
 * through Fastify's serialisation (and the `fields` picker) as a returned value would; other
 * JSON values are serialised here; text is sent as `text/plain`; an empty answer has no body.
 */
export function sendHookResponse(reply: FastifyReply, res: HookResponse): FastifyReply {
  reply.code(res.status)
  if (res.kind === 'empty') return reply.send()
  if (res.kind === 'text') return reply.type('text/plain; charset=utf-8').send(res.body)
  if (typeof res.body === 'object' && res.body !== null) return reply.send(res.body)
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(res.body ?? null))
}
