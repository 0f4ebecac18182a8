import type { FastifyInstance } from 'fastify'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import type { HookScripts } from '../service.js'

/**
 * `GET /api/functions` (SPEC §4.10, superuser only): the hooks dir, its script files as they are
 * on disk now, the script routes bound, and the files that failed to load (`errors`, with file,
 * line and column). There is no write path: scripts are edited on disk.
 */
export function registerFunctionsRoute(http: FastifyInstance, scripts: HookScripts): void {
  http.get('/api/functions', async (req) => {
    requireSuperuser(requestInfo(req))
    await scripts.settled()
    return scripts.listing()
  })
}
