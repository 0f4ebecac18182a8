import type { FastifyInstance } from 'fastify'
import { authResponse } from '../../../core/auth/flow.js'
import { checkAuthRule } from '../../../core/auth/password-auth.js'
import { bearerClaims } from '../../../core/auth/tokens.js'
import { forbidden, unauthorized } from '../../../core/errors.js'
import { requestInfo } from '../../../http/request-info.js'
import type { AuthParams, AuthRouteContext } from '../context.js'

/**
 * `POST /auth-refresh`: a new token for the signed-in record of this collection. An
 * impersonation token is not refreshable: the same token comes back (reference §1.4).
 */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/auth-refresh',
    { config: { rateLimitTags: ['authRefresh'] } },
    async (req) => {
      const c = ctx.authCollection(req.params.collection)
      const info = requestInfo(req)
      if (!info.auth) throw unauthorized('The request requires valid record authorization token.')
      if (info.auth.collection.id !== c.id) {
        throw forbidden(`The request requires auth record from ${c.name} collection.`)
      }
      await checkAuthRule(ctx.app, c, info.auth.record, info)
      const res = await authResponse(ctx.app, c, info.auth.record, info)
      // An API key, like an impersonation token, is not refreshable: the same credential comes
      // back, so a key can never be traded for a fresh token that outlives its revocation.
      const bearer = (req.headers.authorization ?? '').replace(/^bearer\s+/i, '').trim()
      if (req.svcApiKey) return { ...res, token: bearer }
      const claims = bearerClaims(req.headers.authorization)
      return claims?.refreshable === false ? { ...res, token: claims.token } : res
    },
  )
}
