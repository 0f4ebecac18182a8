import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { parseRange } from '../../../http/range.js'
import {
  ASSET_CACHE_CONTROL,
  HTML_CACHE_CONTROL,
  preconditionFails,
  resolveStatic,
  type StaticOptions,
} from '../service.js'

/** Marks a request the fallback already tried, so a file gone meanwhile ends in the JSON 404. */
const tried = new WeakSet<FastifyRequest>()

/**
 * Serves the public folder from the not-found path: below every route (API, dashboard, hook
 * scripts' routes), for GET and HEAD only. `@fastify/send` (through `reply.sendFile`) answers
 * the conditional requests (ETag, Last-Modified, 304), ranges (206, 416) and HEAD.
 */
export async function registerStatic(http: FastifyInstance, opts: StaticOptions): Promise<void> {
  await http.register(fastifyStatic, { serve: false })
  http.svcNotFoundFallback = async (req: FastifyRequest, reply: FastifyReply) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || tried.has(req)) return false
    tried.add(req)
    const target = await resolveStatic(opts, req.url, req.headers.accept)
    if (target.kind === 'none') return false
    if (target.kind === 'redirect') {
      void reply.redirect(target.location, 301)
      return true
    }
    reply.header('cache-control', target.html ? HTML_CACHE_CONTROL : ASSET_CACHE_CONTROL)
    // NB: 412 and 416 are answered here (no body, as the file downloads do): @fastify/send's
    // own would reach the error mapper as a generic 400. With If-Range, send decides.
    if (preconditionFails(req.headers, target.size, target.mtime)) {
      void reply.code(412).send()
      return true
    }
    if (
      req.headers['if-range'] === undefined &&
      parseRange(req.headers.range, target.size) === 'unsatisfiable'
    ) {
      void reply.code(416).header('content-range', `bytes */${target.size}`).send()
      return true
    }
    reply.sendFile(target.file, target.root, {
      dotfiles: 'deny',
      index: false,
      cacheControl: false,
      etag: true,
      lastModified: true,
      acceptRanges: true,
    })
    return true
  }
}
