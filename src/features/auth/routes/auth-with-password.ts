import type { FastifyInstance } from 'fastify'
import { finishAuth } from '../../../core/auth/flow.js'
import { authenticateWithPassword } from '../../../core/auth/password-auth.js'
import { readBody } from '../../../http/body.js'
import { requestInfo } from '../../../http/request-info.js'
import { mfaIdOf, sendAuth, type AuthParams, type AuthRouteContext } from '../context.js'

/** `POST /auth-with-password`: identity + password, then authRule, MFA and alerts. */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/auth-with-password',
    { config: { rateLimitTags: ['authWithPassword', 'auth'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      const info = requestInfo(req, values, 'password')
      return sendAuth(reply, async () => {
        const record = await authenticateWithPassword(ctx.app, c, values)
        return finishAuth(ctx.app, c, record, info, 'password', mfaIdOf(req, values))
      })
    },
  )
}
