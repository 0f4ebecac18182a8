import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { verifyToken } from '../../../core/auth/tokens.js'
import { badRequest, forbidden, notFound } from '../../../core/errors.js'
import { SUPERUSERS } from '../../../core/request-info.js'
import { readBody } from '../../../http/body.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { SuperuserIpGuard } from '../../../http/superuser-ips.js'
import { parseRange } from '../../../http/range.js'
import type { BackupsService } from '../service.js'
import { backupsMessages } from '../messages.js'

type KeyParams = { Params: { key: string } }

/**
 * The backups API (SPEC §4.9), superuser only: list, create, upload, storage-info, download
 * (with a superuser file token in `?token=`, no bearer), delete, restore (204, then the server
 * restarts in process with the archive's data).
 */
export function registerRoutes(
  app: App,
  http: FastifyInstance,
  backups: BackupsService,
  maxUploadBytes: number,
): void {
  const ipGuard = new SuperuserIpGuard(app)
  http.get('/api/backups', async (req) => {
    requireSuperuser(requestInfo(req))
    return backups.list()
  })

  http.post('/api/backups', async (req, reply) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    const { values } = await readBody(req)
    await backups.create(values.name, false, info)
    return reply.code(204).send()
  })

  http.post('/api/backups/upload', async (req, reply) => {
    requireSuperuser(requestInfo(req))
    const { files } = await readBody(req, { maxFileSize: maxUploadBytes })
    await backups.upload(files.find((f) => f.field === 'file'))
    return reply.code(204).send()
  })

  http.get('/api/backups/storage-info', async (req) => {
    requireSuperuser(requestInfo(req))
    return backups.storageInfo()
  })

  // NB: no bearer here (a link a browser follows): a superuser file token in `?token=`.
  http.get<KeyParams & { Querystring: { token?: string } }>(
    '/api/backups/:key',
    async (req, reply) => {
      // No token, a bearer header only, a junk or another record's token: 403, as PocketBase.
      const token = req.query.token
      if (typeof token !== 'string' || token === '')
        throw forbidden(backupsMessages.backupDownloadForbidden)
      const owner = await verifyToken(app, token, ['file'])
      if (!owner || owner.collection.name !== SUPERUSERS)
        throw forbidden(backupsMessages.backupDownloadForbidden)
      // A superuser's file token is a superuser's credential: the IP allow-list applies.
      ipGuard.checkAuth(true, req.svcIp)
      const key = req.params.key
      const info = await backups.stat(key)
      if (!info) throw notFound()
      const range = parseRange(req.headers.range, info.size)
      if (range === 'unsatisfiable')
        return reply.code(416).header('content-range', `bytes */${info.size}`).send()
      const result = await backups.read(key, range ?? undefined)
      if (!result) throw notFound()
      if (range)
        void reply
          .code(206)
          .header('content-range', `bytes ${range.start}-${range.end}/${info.size}`)
      const length = range ? range.end - range.start + 1 : result.info.size
      const name = key.replace(/["\\\r\n]/g, '_')
      return reply
        .headers({
          'content-type': 'application/zip',
          'content-length': String(length),
          'accept-ranges': 'bytes',
          'content-disposition': `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(key)}`,
          'last-modified': result.info.lastModified.toUTCString(),
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        })
        .send(result.stream)
    },
  )

  http.delete<KeyParams>('/api/backups/:key', async (req, reply) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    await backups.delete(req.params.key, info)
    return reply.code(204).send()
  })

  http.post<KeyParams>('/api/backups/:key/restore', async (req, reply) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    // NB: a restart swaps this process's data only; others sharing it would serve the old data.
    const count = await app.cluster.liveInstances()
    if (count > 1) throw badRequest(backupsMessages.backupRestoreShared({ count }))
    const start = await backups.prepareRestore(req.params.key, info)
    // The restart stops HTTP, which waits for requests in flight: it starts once this answer
    // has gone out (or its connection is gone).
    reply.raw.once('close', () => void start())
    return reply.code(204).send()
  })
}
