import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../../core/app.js'
import { verifyToken } from '../../../core/auth/tokens.js'
import type { Field } from '../../../core/collections/model.js'
import { ApiError, messages, notFound } from '../../../core/errors.js'
import { fileKey } from '../../../core/records/files.js'
import { featureHook } from '../../../core/hooks-features.js'
import { requestEvent, triggerRequest } from '../../../core/request-event.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import type { AuthInfo, RequestInfo } from '../../../core/request-info.js'
import { requestInfo } from '../../../http/request-info.js'
import { parseRange } from '../../../http/range.js'
import { servingHeaders } from '../headers.js'
import { isServableKey } from '../hooks.js'
import { fieldHolding, fileHome, thumbnail, type Thumbnails } from '../service.js'

type Params = { collection: string; recordId: string; filename: string }
type Query = { thumb?: string; download?: string; token?: string }

/**
 * `GET /api/files/{collection}/{recordId}/{filename}` (SPEC §4.4): every download is gated by the
 * collection's viewRule for the requester (bearer or `?token=` file token), streamed with range
 * support, with thumbnails made once and cached.
 */
export function registerDownload(app: App, http: FastifyInstance, thumbs: Thumbnails): void {
  http.get<{ Params: Params; Querystring: Query }>(
    '/api/files/:collection/:recordId/:filename',
    { config: { rateLimitTags: ['file'] } },
    async (req, reply) => {
      // PocketBase's words: an unknown collection is a missing context, a path without a file
      // name is a file not found.
      const c = app.collections.find(req.params.collection)
      if (!c) throw notFound(messages.invalidCollectionContext)
      const { recordId, filename } = req.params
      if (filename === '') throw notFound(messages.fileNotFound)
      const stored = await app.records.findById(c, recordId)
      const field = stored ? fieldHolding(c, stored, filename) : undefined
      if (!stored || !field) throw notFound()
      const info = await requester(app, req, field)
      try {
        await app.records.load(c, recordId, 'viewRule', info)
      } catch (err) {
        // A hidden record, a null viewRule and a missing one all look the same: 404.
        if (err instanceof ApiError && (err.status === 403 || err.status === 404)) throw notFound()
        throw err
      }
      const home = await fileHome(app, c, recordId, field, filename)
      if (!home) throw notFound()
      let key = fileKey(home.collection, home.recordId, filename)
      const size = req.query.thumb ?? ''
      let thumbError: string | null = null
      if (size !== '') {
        const made = await thumbnail(app, thumbs, home, field, filename, size)
        if (!made)
          thumbError = `the thumb size "${size}" or the original file format are not supported`
        key = made ?? key
      }
      const hook = featureHook(app, 'onFileDownloadRequest')
      if (!hook?.length) return serve(app, req, reply, key, filename, req.query.download)
      // The download inside `onFileDownloadRequest` (../hooks.ts).
      let served: FastifyReply | null = null
      const event = requestEvent(app, info, {
        collection: c,
        record: stored,
        fileField: field,
        servedPath: key,
        servedName: filename,
        thumbError,
      })
      const answer = await triggerRequest(
        hook,
        event,
        async (e) => {
          if (!isServableKey(e.servedPath) || typeof e.servedName !== 'string')
            throw notFound(messages.fileNotFound)
          served = await serve(app, req, reply, e.servedPath, e.servedName, req.query.download)
        },
        [c.id, c.name],
      )
      return served ?? sendHookResponse(reply, answer)
    },
  )
}

/** The requester: the bearer's auth, or the owner of a valid `?token=` file token. */
async function requester(
  app: App,
  req: FastifyRequest<{ Querystring: Query }>,
  field: Field,
): Promise<RequestInfo> {
  const context = field.options.protected === true ? 'protectedFile' : 'default'
  const info = requestInfo(req, {}, context)
  const token = req.query.token
  if (typeof token === 'string' && token !== '') {
    const owner = await verifyToken(app, token, ['file'])
    if (owner)
      return {
        ...info,
        auth: { record: owner.record, collection: owner.collection } satisfies AuthInfo,
      }
  }
  return info
}

/** Streams a stored object with the download headers, honouring a single `Range`. */
async function serve(
  app: App,
  req: FastifyRequest,
  reply: FastifyReply,
  key: string,
  name: string,
  download: string | undefined,
): Promise<FastifyReply> {
  const info = await app.storage.stat(key)
  if (!info) throw notFound()
  const headers = servingHeaders(name, info.contentType, download === '1' || download === 'true')
  void reply.headers(headers).header('last-modified', info.lastModified.toUTCString())
  reply.removeHeader('x-frame-options')
  const range = parseRange(req.headers.range, info.size)
  if (range === 'unsatisfiable') {
    return reply.code(416).header('content-range', `bytes */${info.size}`).send()
  }
  const result = await app.storage.read(key, range ?? undefined)
  if (!result) throw notFound()
  if (range) {
    void reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${info.size}`)
    void reply.header('content-length', String(range.end - range.start + 1))
  } else {
    void reply.header('content-length', String(info.size))
  }
  if (req.method === 'HEAD') {
    result.stream.destroy()
    return reply.send()
  }
  return reply.send(result.stream)
}
