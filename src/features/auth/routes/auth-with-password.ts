import type { FastifyInstance } from 'fastify'
import { finishAuth } from '../../../core/auth/flow.js'
import { checkRecordPassword, findPasswordIdentity } from '../../../core/auth/password-auth.js'
import { requestEvent, triggerRequest } from '../../../core/request-event.js'
import { readBody } from '../../../http/body.js'
import { requestInfo } from '../../../http/request-info.js'
import { mfaIdOf, sendAuth, type AuthParams, type AuthRouteContext } from '../context.js'
import { tagsOf } from '../flow-hooks.js'

/**
 * `POST /auth-with-password`: identity + password, then authRule, MFA and alerts. Once the body
 * is valid and the identity looked up, `onRecordAuthWithPasswordRequest` runs around the password
 * check and the rest of the sign-in.
 */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/auth-with-password',
    { config: { rateLimitTags: ['authWithPassword', 'auth'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      const info = requestInfo(req, values, 'password')
      return sendAuth(reply, async () => {
        const found = await findPasswordIdentity(ctx.app, c, values)
        return triggerRequest(
          ctx.app.hooks.onRecordAuthWithPasswordRequest,
          requestEvent(ctx.app, info, { collection: c, ...found }),
          async (e) => {
            e.record = await checkRecordPassword(e.record, e.password)
            const mfaId = mfaIdOf(req, values)
            e.response = await finishAuth(e.app, c, e.record, info, 'password', mfaId)
          },
          tagsOf(c),
        )
      })
    },
  )
}
