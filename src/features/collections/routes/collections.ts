import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import {
  createRequest,
  deleteRequest,
  listRequest,
  updateRequest,
  viewRequest,
} from '../../../core/collections/request-hooks.js'
import { messages } from '../../../core/errors.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { objectBody, superuserInfo, type CollectionParams } from '../request.js'

/**
 * List, create, view, update, delete and truncate of SPEC §4.1 (superuser only); each route but
 * truncate runs its collection request hook (`onCollectionsListRequest`, …) around the service
 * call and sends its answer.
 */
export function registerCollections(app: App, http: FastifyInstance): void {
  http.get('/api/collections', async (req, reply) => {
    const info = superuserInfo(req)
    const query = req.query as Record<string, unknown>
    return sendHookResponse(reply, await listRequest(app, query, info))
  })

  http.post('/api/collections', async (req, reply) => {
    const info = superuserInfo(req)
    const input = await objectBody(req, messages.collectionLoadFailed)
    return sendHookResponse(reply, await createRequest(app, input, info))
  })

  http.get<{ Params: CollectionParams }>('/api/collections/:collection', async (req, reply) => {
    const info = superuserInfo(req)
    const c = app.collections.get(req.params.collection)
    return sendHookResponse(reply, await viewRequest(app, c, info))
  })

  http.patch<{ Params: CollectionParams }>('/api/collections/:collection', async (req, reply) => {
    const info = superuserInfo(req)
    const existing = app.collections.get(req.params.collection)
    const input = await objectBody(req, messages.formatLoadFailed)
    return sendHookResponse(reply, await updateRequest(app, existing, input, info))
  })

  http.delete<{ Params: CollectionParams }>('/api/collections/:collection', async (req, reply) => {
    const info = superuserInfo(req)
    const c = app.collections.get(req.params.collection)
    return sendHookResponse(reply, await deleteRequest(app, c, info))
  })

  http.delete<{ Params: CollectionParams }>(
    '/api/collections/:collection/truncate',
    async (req, reply) => {
      superuserInfo(req)
      await app.collections.truncate(req.params.collection)
      return reply.code(204).send()
    },
  )
}
