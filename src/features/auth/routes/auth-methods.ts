import type { FastifyInstance } from 'fastify'
import type { AuthParams, AuthRouteContext } from '../context.js'

/** `GET /auth-methods`: which sign-in methods a collection offers (reference §1.4). */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.get<{ Params: AuthParams }>(
    '/api/collections/:collection/auth-methods',
    { config: { rateLimitTags: ['listAuthMethods'] } },
    async (req) => {
      const c = ctx.authCollection(req.params.collection)
      const o = c.authOptions!
      const password = o.passwordAuth.enabled
      // The oauth2 feature lists the providers with a fresh state and PKCE pair per call.
      const oauth2 = ctx.app.services.find('oauth2')
      const providers = oauth2 && o.oauth2.enabled ? await oauth2.authMethods(c) : []
      return {
        password: {
          identityFields: password ? o.passwordAuth.identityFields : [],
          enabled: password,
        },
        oauth2: { providers, enabled: Boolean(oauth2) && o.oauth2.enabled },
        mfa: { enabled: o.mfa.enabled, duration: o.mfa.enabled ? o.mfa.duration : 0 },
        otp: { enabled: o.otp.enabled, duration: o.otp.enabled ? o.otp.duration : 0 },
        // NB: [] when OAuth2 is off, as PocketBase 0.40.4 answers (not null).
        authProviders: providers,
        usernamePassword: password && o.passwordAuth.identityFields.some((f) => f !== 'email'),
        emailPassword: password && o.passwordAuth.identityFields.includes('email'),
      }
    },
  )
}
