import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { notFound } from '../../core/errors.js'
import type { Collection } from '../../core/collections/model.js'
import { fileMaxSize } from '../../core/fields/file.js'
import { BODY_LIMIT, readBody } from '../../http/body.js'
import { requestInfo } from '../../http/request-info.js'

type Params = { collection: string; id?: string }

/** The largest file a collection's file fields accept (reference §0.6), at least the body limit. */
function maxFileSize(c: Collection): number {
  const sizes = c.fields.filter((f) => f.type === 'file').map(fileMaxSize)
  return Math.max(BODY_LIMIT, ...sizes)
}

/** The records API of SPEC §4.2, a thin layer over the core record service. */
export function register(app: App, http: FastifyInstance): void {
  const collectionOf = (name: string): Collection => {
    const c = app.collections.find(name)
    if (!c) throw notFound('Missing collection context.')
    return c
  }
  const base = '/api/collections/:collection/records'

  http.get<{ Params: Params }>(base, { config: { rateLimitTags: ['list'] } }, async (req) => {
    const c = collectionOf(req.params.collection)
    return app.records.list(c, req.query as Record<string, unknown>, requestInfo(req))
  })

  http.get<{ Params: Params }>(
    `${base}/:id`,
    { config: { rateLimitTags: ['view'] } },
    async (req) => {
      const c = collectionOf(req.params.collection)
      return app.records.view(c, req.params.id ?? '', requestInfo(req))
    },
  )

  http.post<{ Params: Params }>(base, { config: { rateLimitTags: ['create'] } }, async (req) => {
    const c = collectionOf(req.params.collection)
    const body = await readBody(req, { maxFileSize: maxFileSize(c) })
    return app.records.create(c, body.values, requestInfo(req, body.values), body.files)
  })

  http.patch<{ Params: Params }>(
    `${base}/:id`,
    { config: { rateLimitTags: ['update'] } },
    async (req) => {
      const c = collectionOf(req.params.collection)
      const body = await readBody(req, { maxFileSize: maxFileSize(c) })
      const info = requestInfo(req, body.values)
      return app.records.update(c, req.params.id ?? '', body.values, info, body.files)
    },
  )

  http.delete<{ Params: Params }>(
    `${base}/:id`,
    { config: { rateLimitTags: ['delete'] } },
    async (req, reply) => {
      const c = collectionOf(req.params.collection)
      await app.records.delete(c, req.params.id ?? '', requestInfo(req))
      return reply.code(204).send()
    },
  )
}
