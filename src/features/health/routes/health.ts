import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { isSuperuser } from '../../../core/request-info.js'
import { requestInfo } from '../../../http/request-info.js'

/** Headers that often carry the client IP behind a proxy (reference §5.5). */
const COMMON_PROXY_HEADERS = ['CF-Connecting-IP', 'Fly-Client-IP', 'X-Forwarded-For', 'X-Real-IP']

/**
 * `GET /api/health` (and HEAD): public. Superusers also get `canBackup`, the resolved client IP,
 * and the first proxy header present in the request (a hint for setting `trustedProxy`).
 */
export function registerHealth(app: App, http: FastifyInstance): void {
  http.get('/api/health', async (req) => {
    const info = requestInfo(req)
    if (!isSuperuser(info)) return { code: 200, message: 'API is healthy.', data: {} }
    const candidates = [...app.settings.get().trustedProxy.headers, ...COMMON_PROXY_HEADERS]
    const possibleProxyHeader =
      candidates.find((h) => req.headers[h.toLowerCase()] !== undefined) ?? ''
    return {
      code: 200,
      message: 'API is healthy.',
      data: {
        // False while a backup or restore runs, or when none can be taken (no backups feature,
        // backups on S3 without a bucket).
        canBackup: app.services.find('backups')?.canBackup ?? false,
        realIP: info.ip,
        possibleProxyHeader,
      },
    }
  })
}
