import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { App } from '../../core/app.js'
import { collectionToJSON } from '../../core/collections/codec.js'
import { scaffold } from '../../core/collections/defaults.js'
import { listCollections } from '../../core/collections/list.js'
import { badRequest } from '../../core/errors.js'
import { readBody } from '../../http/body.js'
import { requireSuperuser } from '../../http/guards.js'
import { requestInfo } from '../../http/request-info.js'

type Params = { collection: string }

const guard = (req: FastifyRequest): void => requireSuperuser(requestInfo(req))

async function objectBody(req: FastifyRequest, message: string): Promise<Record<string, unknown>> {
  const { values } = await readBody(req).catch((err: unknown) => {
    throw badRequest(message, {}, err)
  })
  return values
}

/** The collections API of SPEC §4.1 (superuser only). */
export function register(app: App, http: FastifyInstance): void {
  http.get('/api/collections', async (req) => {
    guard(req)
    return listCollections(app, req.query as Record<string, unknown>)
  })

  http.post('/api/collections', async (req) => {
    guard(req)
    const input = await objectBody(
      req,
      'Failed to load the collection type data due to invalid formatting.',
    )
    return collectionToJSON(await app.collections.create(input))
  })

  http.get('/api/collections/meta/scaffolds', async (req) => {
    guard(req)
    return {
      base: collectionToJSON(scaffold('base')),
      auth: collectionToJSON(scaffold('auth')),
      view: collectionToJSON(scaffold('view')),
    }
  })

  http.put('/api/collections/import', async (req, reply) => {
    guard(req)
    const body = await objectBody(
      req,
      'Failed to load the submitted data due to invalid formatting.',
    )
    const deleteMissing = body.deleteMissing === true || body.deleteMissing === 'true'
    await app.collections.import(body.collections, deleteMissing)
    return reply.code(204).send()
  })

  http.get<{ Params: Params }>('/api/collections/:collection', async (req) => {
    guard(req)
    return collectionToJSON(app.collections.get(req.params.collection))
  })

  http.patch<{ Params: Params }>('/api/collections/:collection', async (req) => {
    guard(req)
    const existing = app.collections.get(req.params.collection)
    const input = await objectBody(
      req,
      'Failed to load the submitted data due to invalid formatting.',
    )
    return collectionToJSON(await app.collections.update(existing.id, input))
  })

  http.delete<{ Params: Params }>('/api/collections/:collection', async (req, reply) => {
    guard(req)
    await app.collections.delete(req.params.collection)
    return reply.code(204).send()
  })

  http.delete<{ Params: Params }>('/api/collections/:collection/truncate', async (req, reply) => {
    guard(req)
    await app.collections.truncate(req.params.collection)
    return reply.code(204).send()
  })
}
