import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { isSuperuser } from '../../core/request-info.js'
import { requestInfo } from '../../http/request-info.js'

/** `GET /api/health` (and HEAD): public; superusers get diagnostics in `data`. */
export function register(_app: App, http: FastifyInstance): void {
  http.get('/api/health', async (req) => {
    const info = requestInfo(req)
    const data = isSuperuser(info)
      ? { canBackup: true, realIP: info.ip, possibleProxyHeader: '' }
      : {}
    return { code: 200, message: 'API is healthy.', data }
  })
}
