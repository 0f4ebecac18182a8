import type { FastifyInstance } from 'fastify'
import { confirmEmailChange, requestEmailChange } from '../../../core/auth/token-flows.js'
import { forbidden, unauthorized } from '../../../core/errors.js'
import { readBody } from '../../../http/body.js'
import { requestInfo } from '../../../http/request-info.js'
import type { AuthParams, AuthRouteContext } from '../context.js'

/** `POST /request-email-change` (signed in, same collection) and `POST /confirm-email-change`. */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/request-email-change',
    { config: { rateLimitTags: ['requestEmailChange'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      const info = requestInfo(req)
      if (!info.auth) throw unauthorized('The request requires valid record authorization token.')
      if (info.auth.collection.id !== c.id) {
        throw forbidden(`The request requires auth record from ${c.name} collection.`)
      }
      await requestEmailChange(ctx.app, c, info.auth.record, (await readBody(req)).values)
      return reply.code(204).send()
    },
  )

  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/confirm-email-change',
    { config: { rateLimitTags: ['confirmEmailChange'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      await confirmEmailChange(ctx.app, c, (await readBody(req)).values)
      return reply.code(204).send()
    },
  )
}
