import type { FastifyInstance } from 'fastify'
import { confirmVerification, requestVerification } from '../../../core/auth/token-flows.js'
import { readBody } from '../../../http/body.js'
import type { AuthParams, AuthRouteContext } from '../context.js'

/** `POST /request-verification` and `POST /confirm-verification`; both answer 204. */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/request-verification',
    { config: { rateLimitTags: ['requestVerification'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      await requestVerification(ctx.app, c, (await readBody(req)).values, ctx.resend)
      return reply.code(204).send()
    },
  )

  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/confirm-verification',
    { config: { rateLimitTags: ['confirmVerification'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      await confirmVerification(ctx.app, c, (await readBody(req)).values)
      return reply.code(204).send()
    },
  )
}
