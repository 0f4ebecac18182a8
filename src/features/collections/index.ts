import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { App } from '../../core/app.js'
import { collectionToJSON } from '../../core/collections/codec.js'
import { scaffold } from '../../core/collections/defaults.js'
import {
  createRequest,
  deleteRequest,
  importRequest,
  listRequest,
  updateRequest,
  viewRequest,
} from '../../core/collections/request-hooks.js'
import { badRequest } from '../../core/errors.js'
import type { RequestInfo } from '../../core/request-info.js'
import { readBody } from '../../http/body.js'
import { requireSuperuser } from '../../http/guards.js'
import { sendHookResponse } from '../../http/hook-response.js'
import { requestInfo } from '../../http/request-info.js'

type Params = { collection: string }

/** The request's info, once the caller is known to be a superuser. */
const guard = (req: FastifyRequest): RequestInfo => {
  const info = requestInfo(req)
  requireSuperuser(info)
  return info
}

async function objectBody(req: FastifyRequest, message: string): Promise<Record<string, unknown>> {
  const { values } = await readBody(req).catch((err: unknown) => {
    throw badRequest(message, {}, err)
  })
  return values
}

/**
 * The collections API of SPEC §4.1 (superuser only); each route runs its collection request
 * hook (`onCollectionsListRequest`, …) around the service call and sends its answer.
 */
export function register(app: App, http: FastifyInstance): void {
  http.get('/api/collections', async (req, reply) => {
    const info = guard(req)
    const query = req.query as Record<string, unknown>
    return sendHookResponse(reply, await listRequest(app, query, info))
  })

  http.post('/api/collections', async (req, reply) => {
    const info = guard(req)
    const input = await objectBody(
      req,
      'Failed to load the collection type data due to invalid formatting.',
    )
    return sendHookResponse(reply, await createRequest(app, input, info))
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
    const info = guard(req)
    const body = await objectBody(
      req,
      'Failed to load the submitted data due to invalid formatting.',
    )
    const deleteMissing = body.deleteMissing === true || body.deleteMissing === 'true'
    return sendHookResponse(reply, await importRequest(app, body.collections, deleteMissing, info))
  })

  http.get<{ Params: Params }>('/api/collections/:collection', async (req, reply) => {
    const info = guard(req)
    const c = app.collections.get(req.params.collection)
    return sendHookResponse(reply, await viewRequest(app, c, info))
  })

  http.patch<{ Params: Params }>('/api/collections/:collection', async (req, reply) => {
    const info = guard(req)
    const existing = app.collections.get(req.params.collection)
    const input = await objectBody(
      req,
      'Failed to load the submitted data due to invalid formatting.',
    )
    return sendHookResponse(reply, await updateRequest(app, existing, input, info))
  })

  http.delete<{ Params: Params }>('/api/collections/:collection', async (req, reply) => {
    const info = guard(req)
    const c = app.collections.get(req.params.collection)
    return sendHookResponse(reply, await deleteRequest(app, c, info))
  })

  http.delete<{ Params: Params }>('/api/collections/:collection/truncate', async (req, reply) => {
    guard(req)
    await app.collections.truncate(req.params.collection)
    return reply.code(204).send()
  })
}
