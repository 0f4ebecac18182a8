import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { notFound } from '../../../core/errors.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { keyOrThrow, listObjects, refuseBadKeys } from '../service.js'

/** A `Content-Disposition: attachment` value with an ASCII fallback and the UTF-8 name. */
function attachment(key: string): string {
  const name = key.slice(key.lastIndexOf('/') + 1)
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

/**
 * The object browser of SPEC §4.15 (superuser only): raw keys in the configured storage, no
 * records involved. `GET /api/storage/objects?prefix=` lists one level;
 * `DELETE /api/storage/objects?key=` removes one object; `GET /api/storage/objects/download?key=`
 * streams it as an attachment.
 */
export function registerObjects(app: App, http: FastifyInstance): void {
  http.get('/api/storage/objects', async (req) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    return listObjects(app, info.query.prefix ?? '')
  })

  http.delete('/api/storage/objects', async (req, reply) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    const key = keyOrThrow(info.query.key)
    if (!(await refuseBadKeys(() => app.storage.delete(key)))) throw notFound()
    await reply.code(204).send()
  })

  http.get('/api/storage/objects/download', async (req, reply) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    const key = keyOrThrow(info.query.key)
    const result = await refuseBadKeys(() => app.storage.read(key))
    if (!result) throw notFound()
    return reply
      .header('Content-Type', 'application/octet-stream')
      .header('Content-Disposition', attachment(key))
      .header('Content-Length', String(result.info.size))
      .header('Cache-Control', 'no-store')
      .send(result.stream)
  })
}
