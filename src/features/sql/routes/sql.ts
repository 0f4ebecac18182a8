import type { FastifyInstance } from 'fastify'
import { badRequest, messages } from '../../../core/errors.js'
import { readBody } from '../../../http/body.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { parseSqlInput, type SqlConsole } from '../service.js'

/**
 * `POST /api/sql` (superuser; 401 without a token, 403 for other records): `{sql, write}` →
 * `{columns, rows, truncated}` for a read, `{rowsAffected}` for a write (SPEC §4.14).
 */
export function registerRoutes(http: FastifyInstance, sqlConsole: SqlConsole): void {
  http.post('/api/sql', async (req) => {
    requireSuperuser(requestInfo(req))
    const { values } = await readBody(req).catch((err: unknown) => {
      throw badRequest(messages.loadFailed, {}, err)
    })
    return sqlConsole.run(parseSqlInput(values))
  })
}
