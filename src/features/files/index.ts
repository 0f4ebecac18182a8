import mime from 'mime-types'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../core/app.js'
import { signToken, verifyToken } from '../../core/auth/tokens.js'
import type { Collection, Field } from '../../core/collections/model.js'
import { ApiError, notFound } from '../../core/errors.js'
import { fileKey, thumbKey } from '../../core/records/files.js'
import type { AuthInfo, RecordData, RequestInfo } from '../../core/request-info.js'
import { requireAuth } from '../../http/guards.js'
import { requestInfo } from '../../http/request-info.js'
import { generateThumb, isThumbable, parseThumbSize, ThumbGenerator } from '../../tools/thumbs.js'
import { parseRange, servingHeaders } from './headers.js'

type Params = { collection: string; recordId: string; filename: string }
type Query = { thumb?: string; download?: string; token?: string }

const asList = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? [v] : []

/** The file field of a record that holds `name`. */
function fieldHolding(c: Collection, record: RecordData, name: string): Field | undefined {
  return c.fields.find((f) => f.type === 'file' && asList(record[f.name]).includes(name))
}

/**
 * Files: `POST /api/files/token` and `GET /api/files/{collection}/{recordId}/{filename}` (SPEC
 * §4.4): every download is gated by the collection's viewRule for the requester (bearer or
 * `?token=` file token), streamed with range support, with thumbnails made once and cached.
 */
export function register(app: App, http: FastifyInstance): void {
  const thumbs = new ThumbGenerator<string | null>()

  http.post('/api/files/token', async (req) => {
    const info = requestInfo(req)
    requireAuth(info)
    const { record, collection } = info.auth!
    return { token: await signToken(collection, record, 'file') }
  })

  http.get<{ Params: Params; Querystring: Query }>(
    '/api/files/:collection/:recordId/:filename',
    { config: { rateLimitTags: ['file'] } },
    async (req, reply) => {
      const c = app.collections.find(req.params.collection)
      if (!c) throw notFound()
      const { recordId, filename } = req.params
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
      let key = fileKey(c, recordId, filename)
      const size = req.query.thumb ?? ''
      if (size !== '')
        key = (await thumbnail(app, thumbs, c, field, recordId, filename, size)) ?? key
      return serve(app, req, reply, key, filename, req.query.download)
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

/** The key of a thumbnail (generated once, then cached in storage), or null to serve the original. */
async function thumbnail(
  app: App,
  thumbs: ThumbGenerator<string | null>,
  c: Collection,
  field: Field,
  recordId: string,
  name: string,
  sizeText: string,
): Promise<string | null> {
  const allowed = [
    '100x100',
    ...(Array.isArray(field.options.thumbs) ? (field.options.thumbs as string[]) : []),
  ]
  const size = parseThumbSize(sizeText)
  if (!size || !allowed.includes(sizeText)) return null
  const original = fileKey(c, recordId, name)
  const info = await app.storage.stat(original)
  const type = info?.contentType ?? (mime.lookup(name) || '')
  if (!info || !isThumbable(type)) return null
  const key = thumbKey(c, recordId, name, sizeText)
  if (await app.storage.stat(key)) return key
  return thumbs.get(key, async () => {
    if (await app.storage.stat(key)) return key
    try {
      const source = await app.storage.read(original)
      if (!source) return null
      const thumb = await generateThumb(source.stream, size)
      await app.storage.write(key, thumb.data, {
        contentType: thumb.contentType,
        size: thumb.data.length,
      })
      return key
    } catch (err) {
      app.logger.warn('thumbnail generation failed; serving the original', {
        key,
        error: String(err),
      })
      return null
    }
  })
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
