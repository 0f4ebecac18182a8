import type { FastifyInstance } from 'fastify'
import { confirmPasswordReset, requestPasswordReset } from '../../../core/auth/token-flows.js'
import { readBody } from '../../../http/body.js'
import type { AuthParams, AuthRouteContext } from '../context.js'

/** `POST /request-password-reset` and `POST /confirm-password-reset`; both answer 204. */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/request-password-reset',
    { config: { rateLimitTags: ['requestPasswordReset'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      await requestPasswordReset(ctx.app, c, (await readBody(req)).values, ctx.resend)
      return reply.code(204).send()
    },
  )

  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/confirm-password-reset',
    { config: { rateLimitTags: ['confirmPasswordReset'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      await confirmPasswordReset(ctx.app, c, (await readBody(req)).values)
      return reply.code(204).send()
    },
  )
}
