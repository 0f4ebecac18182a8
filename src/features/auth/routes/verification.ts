import type { FastifyInstance } from 'fastify'
import { confirmVerification, requestVerification } from '../../../core/auth/token-flows.js'
import { readBody } from '../../../http/body.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import type { AuthParams, AuthRouteContext } from '../context.js'
import { quietFlow, recordOfEmail, tokenOfBody } from '../flow-hooks.js'

/**
 * `POST /request-verification` (inside `onRecordRequestVerificationRequest` when an unverified
 * record has the email) and `POST /confirm-verification` (inside
 * `onRecordConfirmVerificationRequest` when the token is valid); both answer 204.
 */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  const hooks = ctx.app.hooks
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/request-verification',
    { config: { rateLimitTags: ['requestVerification'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      const record = await recordOfEmail(ctx.app, c, values)
      const res = await quietFlow(
        hooks.onRecordRequestVerificationRequest,
        ctx.app,
        requestInfo(req, values),
        c,
        record?.verified === true ? null : record,
        (app) => requestVerification(app, c, values, ctx.resend),
      )
      return sendHookResponse(reply, res)
    },
  )

  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/confirm-verification',
    { config: { rateLimitTags: ['confirmVerification'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      const token = await tokenOfBody(ctx.app, c, values, 'verification')
      const res = await quietFlow(
        hooks.onRecordConfirmVerificationRequest,
        ctx.app,
        requestInfo(req, values),
        c,
        token?.record ?? null,
        (app) => confirmVerification(app, c, values),
      )
      return sendHookResponse(reply, res)
    },
  )
}
