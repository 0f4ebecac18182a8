import type { FastifyInstance } from 'fastify'
import { recordAuthResponse } from '../../../core/auth/flow.js'
import { checkAuthRule } from '../../../core/auth/password-auth.js'
import { bearerClaims } from '../../../core/auth/tokens.js'
import { requestEvent, triggerRequest } from '../../../core/request-event.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import { signedInCollection, type AuthParams, type AuthRouteContext } from '../context.js'
import { tagsOf } from '../flow-hooks.js'

/**
 * `POST /auth-refresh`: a new token for the signed-in record of this collection, inside
 * `onRecordAuthRefreshRequest`. An impersonation token is not refreshable: the same token comes
 * back (reference §1.4).
 */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/auth-refresh',
    { config: { rateLimitTags: ['authRefresh'] } },
    async (req, reply) => {
      const info = requestInfo(req)
      const { c, auth } = signedInCollection(ctx, req.params.collection, info)
      // An API key, like an impersonation token, is not refreshable: the same credential comes
      // back, so a key can never be traded for a fresh token that outlives its revocation.
      const bearer = (req.headers.authorization ?? '').replace(/^bearer\s+/i, '').trim()
      const claims = bearerClaims(req.headers.authorization)
      const kept = req.svcApiKey ? bearer : claims?.refreshable === false ? claims.token : undefined
      const self = auth.record
      const res = await triggerRequest(
        ctx.app.hooks.onRecordAuthRefreshRequest,
        requestEvent(ctx.app, info, { collection: c, record: self }),
        async (e) => {
          const record = e.record ?? self
          await checkAuthRule(e.app, c, record, info)
          const opts = kept === undefined ? {} : { token: kept }
          e.response = await recordAuthResponse(e.app, c, record, info, '', opts)
        },
        tagsOf(c),
      )
      return sendHookResponse(reply, res)
    },
  )
}
