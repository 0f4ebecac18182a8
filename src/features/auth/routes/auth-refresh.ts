import type { FastifyInstance } from 'fastify'
import { recordAuthResponse } from '../../../core/auth/flow.js'
import { checkAuthRule } from '../../../core/auth/password-auth.js'
import { bearerClaims } from '../../../core/auth/tokens.js'
import { forbidden, messages, notFound, unauthorized } from '../../../core/errors.js'
import { requestEvent, triggerRequest } from '../../../core/request-event.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import type { AuthParams, AuthRouteContext } from '../context.js'
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
      // PocketBase's order: the collection (any type), the token, then the token's collection,
      // named in the 403 (a base collection's refresh is a 403, not a 404).
      const found = ctx.app.collections.find(req.params.collection)
      if (!found) throw notFound(messages.invalidCollectionContext)
      const info = requestInfo(req)
      if (!info.auth) throw unauthorized(messages.authTokenRequired)
      if (info.auth.collection.id !== found.id) {
        throw forbidden(messages.authCollectionRequired({ collection: info.auth.collection.name }))
      }
      const c = ctx.authCollection(req.params.collection)
      // An API key, like an impersonation token, is not refreshable: the same credential comes
      // back, so a key can never be traded for a fresh token that outlives its revocation.
      const bearer = (req.headers.authorization ?? '').replace(/^bearer\s+/i, '').trim()
      const claims = bearerClaims(req.headers.authorization)
      const kept = req.svcApiKey ? bearer : claims?.refreshable === false ? claims.token : undefined
      const self = info.auth.record
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
