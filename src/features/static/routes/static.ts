import type sendModule from '@fastify/send'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { parseRange } from '../../../http/range.js'
import { lazyPackage } from '../../../tools/lazy-module.js'
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
 * `@fastify/send` (what `@fastify/static` serves files with), loaded with the first static file
 * (tools/lazy-module.ts): with its MIME table it held ~1 MB of an idle server's heap.
 */
const send = lazyPackage<typeof sendModule>('@fastify/send')

/**
 * Sends `file` (a path under `root`) as `@fastify/static`'s `reply.sendFile` does: ETag,
 * Last-Modified, 304, ranges (206) and HEAD come from `@fastify/send`; a file gone meanwhile
 * (or a directory) goes on to the not-found handler.
 */
async function sendFile(
  req: FastifyRequest,
  reply: FastifyReply,
  file: string,
  root: string,
): Promise<void> {
  const result = await send()(req.raw, encodeURI(file), {
    root,
    dotfiles: 'deny',
    index: false,
    cacheControl: false,
    etag: true,
    lastModified: true,
    acceptRanges: true,
  })
  if (result.type === 'file') {
    void reply.code(reply.statusCode !== 200 ? reply.statusCode : result.statusCode)
    void reply.headers(result.headers)
    await reply.send(result.stream)
    return
  }
  // A directory, a file gone meanwhile or send's own 404: the not-found handler answers.
  const error =
    result.type === 'error'
      ? (result.metadata.error as Error & { code?: string; status?: number })
      : null
  if (!error || error.code === 'ENOENT' || error.status === 404) {
    reply.callNotFound()
    return
  }
  await reply.send(error)
}

/**
 * Serves the public folder from the not-found path: below every route (API, dashboard, hook
 * scripts' routes), for GET and HEAD only. `@fastify/send` (see `sendFile`) answers
 * the conditional requests (ETag, Last-Modified, 304), ranges (206, 416) and HEAD.
 */
export function registerStatic(http: FastifyInstance, opts: StaticOptions): void {
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
    await sendFile(req, reply, target.file, target.root)
    return true
  }
}
