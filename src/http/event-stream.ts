import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * Takes the response over from Fastify and opens a server-sent events stream on it, keeping the
 * headers earlier hooks set (CORS, security). Returns the raw response to write events to, or
 * null for a HEAD request (answered with the headers alone).
 */
export function openEventStream(req: FastifyRequest, reply: FastifyReply): ServerResponse | null {
  reply.hijack()
  const res = reply.raw
  const headers: OutgoingHttpHeaders = {
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  }
  res.writeHead(200, headers)
  if (req.method === 'HEAD') {
    res.end()
    return null
  }
  req.raw.socket.setNoDelay(true)
  return res
}
