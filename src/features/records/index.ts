import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { notFound } from '../../core/errors.js'
import type { Collection } from '../../core/collections/model.js'
import { readBody } from '../../http/body.js'
import { requestInfo } from '../../http/request-info.js'

type Params = { collection: string; id?: string }

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
    const body = await readBody(req)
    return app.records.create(c, body.values, requestInfo(req, body.values))
  })

  http.patch<{ Params: Params }>(
    `${base}/:id`,
    { config: { rateLimitTags: ['update'] } },
    async (req) => {
      const c = collectionOf(req.params.collection)
      const body = await readBody(req)
      return app.records.update(c, req.params.id ?? '', body.values, requestInfo(req, body.values))
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
