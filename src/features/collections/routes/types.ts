import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { generateTypes } from '../../../core/collections/typegen.js'
import { superuserInfo } from '../request.js'

/** The ETag of a text: a strong validator, the SHA-256 of its bytes. */
function etagOf(text: string): string {
  return `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`
}

/** True when `If-None-Match` names `etag` (or is `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '')
    return tag === '*' || tag === etag
  })
}

/**
 * `GET /api/collections/meta/types` (superuser): the TypeScript types of the collections, the
 * text `svcbase typegen` writes, with an ETag (`If-None-Match` answers 304). docs/typegen.md.
 */
export function registerTypes(app: App, http: FastifyInstance): void {
  http.get('/api/collections/meta/types', async (req, reply) => {
    superuserInfo(req)
    const text = generateTypes(app.collections.all())
    const etag = etagOf(text)
    reply.header('etag', etag).header('cache-control', 'no-cache')
    if (matches(req.headers['if-none-match'], etag)) return reply.code(304).send()
    return reply.type('text/plain; charset=utf-8').send(text)
  })
}
