/**
 * PocketBase's `$apis.gzip()` for script routes: a route whose chain ran the middleware answers
 * gzip-compressed when the client accepts it (`Accept-Encoding: gzip`), with
 * `Vary: Accept-Encoding` either way. Applied by an `onSend` hook of the script routes.
 */
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'

const marked = new WeakSet<FastifyRequest>()
const gzipAsync = promisify(gzip)

/** Marks `req`: its answer is compressed (see {@link gzipOnSend}). */
export function markGzip(req: FastifyRequest): void {
  marked.add(req)
}

/** True when an `Accept-Encoding` header takes gzip (not with `q=0`). */
function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '')
  return text.split(',').some((part) => {
    const [coding, ...params] = part.split(';').map((s) => s.trim().toLowerCase())
    if (coding !== 'gzip' && coding !== '*') return false
    const q = params.find((p) => p.startsWith('q='))
    return q === undefined || Number(q.slice(2)) > 0
  })
}

/** The `onSend` hook: compresses a marked request's text or bytes answer. */
export function gzipOnSend(
  req: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: Error | null, payload?: unknown) => void,
): void {
  if (!marked.has(req)) return done(null, payload)
  reply.header('vary', 'Accept-Encoding')
  const text = typeof payload === 'string' || Buffer.isBuffer(payload)
  if (!text || payload.length === 0 || !acceptsGzip(req.headers['accept-encoding']))
    return done(null, payload)
  // On the thread pool: an answer of any size never holds the event loop.
  gzipAsync(payload).then(
    (zipped) => {
      reply.header('content-encoding', 'gzip')
      reply.removeHeader('content-length')
      done(null, zipped)
    },
    (err: Error) => done(err),
  )
}
