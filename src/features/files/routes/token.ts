import type { FastifyInstance } from 'fastify'
import { signToken } from '../../../core/auth/tokens.js'
import { requireAuth } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'

/** `POST /api/files/token`: a short-lived file token for the authenticated record. */
export function registerFileToken(http: FastifyInstance): void {
  http.post('/api/files/token', async (req) => {
    const info = requestInfo(req)
    requireAuth(info)
    const { record, collection } = info.auth!
    return { token: await signToken(collection, record, 'file') }
  })
}
