import type { FastifyInstance } from 'fastify'
import type { AuthParams, AuthRouteContext } from '../context.js'

/** `GET /auth-methods`: which sign-in methods a collection offers (reference §1.4). */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.get<{ Params: AuthParams }>(
    '/api/collections/:collection/auth-methods',
    { config: { rateLimitTags: ['listAuthMethods'] } },
    async (req) => {
      const o = ctx.authCollection(req.params.collection).authOptions!
      const password = o.passwordAuth.enabled
      return {
        password: {
          identityFields: password ? o.passwordAuth.identityFields : [],
          enabled: password,
        },
        oauth2: { providers: [], enabled: false },
        mfa: { enabled: o.mfa.enabled, duration: o.mfa.enabled ? o.mfa.duration : 0 },
        otp: { enabled: o.otp.enabled, duration: o.otp.enabled ? o.otp.duration : 0 },
        authProviders: null,
        usernamePassword: password && o.passwordAuth.identityFields.some((f) => f !== 'email'),
        emailPassword: password && o.passwordAuth.identityFields.includes('email'),
      }
    },
  )
}
