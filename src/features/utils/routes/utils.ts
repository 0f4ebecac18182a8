import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  etagOf,
  matchesEtag,
  parseAvatar,
  parseQr,
  renderAvatar,
  renderQr,
  type ImageCache,
  type ImageFormat,
} from '../service.js'

/** One year, immutable: the same parameters always give the same bytes (the ETag says which). */
const CACHE_CONTROL = 'public, max-age=31536000, immutable'

/** Nothing in an image runs or loads: an SVG opened from our origin stays inert. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

const CONTENT_TYPES: Readonly<Record<ImageFormat, string>> = {
  svg: 'image/svg+xml',
  png: 'image/png',
}

/**
 * `GET /api/utils/avatar` and `GET /api/utils/qr` (DECISIONS "Utils"): public, validated, cached
 * by the client (`ETag`, `If-None-Match` → 304) and, for recent images, by the server.
 */
export function registerUtils(http: FastifyInstance, cache: ImageCache): void {
  http.get('/api/utils/avatar', { config: { rateLimitTags: ['utils'] } }, async (req, reply) => {
    const params = parseAvatar(req.query as Record<string, unknown>)
    return answer(req, reply, cache, etagOf('avatar', params), params.format, () =>
      renderAvatar(params),
    )
  })
  http.get('/api/utils/qr', { config: { rateLimitTags: ['utils'] } }, async (req, reply) => {
    const params = parseQr(req.query as Record<string, unknown>)
    return answer(req, reply, cache, etagOf('qr', params), params.format, () => renderQr(params))
  })
}

async function answer(
  req: FastifyRequest,
  reply: FastifyReply,
  cache: ImageCache,
  etag: string,
  format: ImageFormat,
  render: () => Promise<Buffer>,
): Promise<FastifyReply> {
  // Rendered (or found) before a 304 too: rendering is what refuses a QR PNG too small for its
  // data, so a 304 is only ever the answer to parameters that make an image.
  let image = cache.get(etag)
  if (!image) {
    image = await render()
    cache.set(etag, image)
  }
  // Only now: a refused request must not carry the headers of a cacheable image.
  reply
    .header('etag', etag)
    .header('cache-control', CACHE_CONTROL)
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
  if (matchesEtag(req.headers['if-none-match'], etag)) return reply.code(304).send()
  return reply.type(CONTENT_TYPES[format]).send(image)
}
