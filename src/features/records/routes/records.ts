import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { messages, notFound } from '../../../core/errors.js'
import type { Collection } from '../../../core/collections/model.js'
import { fileMaxSize } from '../../../core/fields/file.js'
import {
  createRequest,
  deleteRequest,
  listRequest,
  updateRequest,
  viewRequest,
} from '../../../core/records/request-hooks.js'
import { BODY_LIMIT, readBody } from '../../../http/body.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'

type Params = { collection: string; id?: string }

/** The largest file a collection's file fields accept (reference §0.6), at least the body limit. */
function maxFileSize(c: Collection): number {
  const sizes = c.fields.filter((f) => f.type === 'file').map(fileMaxSize)
  return Math.max(BODY_LIMIT, ...sizes)
}

/**
 * The records API of SPEC §4.2, a thin layer over the core record service; each route runs its
 * record request hook (`onRecordsListRequest`, …) around the service call and sends its answer.
 */
export function registerRecords(app: App, http: FastifyInstance): void {
  const collectionOf = (name: string): Collection => {
    const c = app.collections.find(name)
    if (!c) throw notFound(messages.missingCollectionContext)
    return c
  }
  const base = '/api/collections/:collection/records'

  http.get<{ Params: Params }>(
    base,
    { config: { rateLimitTags: ['list'] } },
    async (req, reply) => {
      const c = collectionOf(req.params.collection)
      const query = req.query as Record<string, unknown>
      return sendHookResponse(reply, await listRequest(app, c, query, requestInfo(req)))
    },
  )

  http.get<{ Params: Params }>(
    `${base}/:id`,
    { config: { rateLimitTags: ['view'] } },
    async (req, reply) => {
      const c = collectionOf(req.params.collection)
      const res = await viewRequest(app, c, recordId(req.params), requestInfo(req))
      return sendHookResponse(reply, res)
    },
  )

  http.post<{ Params: Params }>(
    base,
    { config: { rateLimitTags: ['create'] } },
    async (req, reply) => {
      const c = collectionOf(req.params.collection)
      const body = await readBody(req, { maxFileSize: maxFileSize(c) })
      const info = requestInfo(req, body.values)
      return sendHookResponse(reply, await createRequest(app, c, body.values, info, body.files))
    },
  )

  http.patch<{ Params: Params }>(
    `${base}/:id`,
    { config: { rateLimitTags: ['update'] } },
    async (req, reply) => {
      const c = collectionOf(req.params.collection)
      const body = await readBody(req, { maxFileSize: maxFileSize(c) })
      const info = requestInfo(req, body.values)
      const id = recordId(req.params)
      return sendHookResponse(reply, await updateRequest(app, c, id, body.values, info, body.files))
    },
  )

  http.delete<{ Params: Params }>(
    `${base}/:id`,
    { config: { rateLimitTags: ['delete'] } },
    async (req, reply) => {
      const c = collectionOf(req.params.collection)
      const res = await deleteRequest(app, c, recordId(req.params), requestInfo(req))
      return sendHookResponse(reply, res)
    },
  )
}

/**
 * The record id of a path. An id with a NUL character names no record (PostgreSQL cannot even
 * compare text holding one): 404, as PocketBase answers, on either engine.
 */
function recordId(params: Params): string {
  const id = params.id ?? ''
  if (id.includes('\0')) throw notFound()
  return id
}
