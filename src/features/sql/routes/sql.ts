import type { FastifyInstance } from 'fastify'
import { badRequest, messages } from '../../../core/errors.js'
import { readBody } from '../../../http/body.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { isPocketBaseBody, parsePbQuery } from '../pocketbase.js'
import { parseSqlInput, SQL_MAX_LENGTH, type SqlConsole } from '../service.js'

/**
 * `POST /api/sql` (superuser; 401 without a token, 403 for other records): `{sql, write}` →
 * `{columns, rows, truncated}` for a read, `{rowsAffected}` for a write (SPEC §4.14); PocketBase's
 * `{query}` → `{execTime, affectedRows, columns, rows}` (`pocketbase.ts`).
 */
export function registerRoutes(http: FastifyInstance, sqlConsole: SqlConsole): void {
  http.post('/api/sql', async (req) => {
    requireSuperuser(requestInfo(req))
    const { values } = await readBody(req).catch((err: unknown) => {
      throw badRequest(messages.loadFailed, {}, err)
    })
    if (isPocketBaseBody(values)) {
      return sqlConsole.runPocketBase(parsePbQuery(values, SQL_MAX_LENGTH))
    }
    return sqlConsole.run(parseSqlInput(values))
  })
}
