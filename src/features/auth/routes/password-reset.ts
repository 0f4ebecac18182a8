import type { FastifyInstance } from 'fastify'
import { confirmPasswordReset, requestPasswordReset } from '../../../core/auth/token-flows.js'
import { readBody } from '../../../http/body.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import type { AuthParams, AuthRouteContext } from '../context.js'
import { quietFlow, recordOfEmail, tokenOfBody } from '../flow-hooks.js'

/**
 * `POST /request-password-reset` (inside `onRecordRequestPasswordResetRequest` when a record has
 * the email) and `POST /confirm-password-reset` (inside `onRecordConfirmPasswordResetRequest`
 * when the token is valid); both answer 204.
 */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  const hooks = ctx.app.hooks
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/request-password-reset',
    { config: { rateLimitTags: ['requestPasswordReset'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      const record = await recordOfEmail(ctx.app, c, values)
      const res = await quietFlow(
        hooks.onRecordRequestPasswordResetRequest,
        ctx.app,
        requestInfo(req, values),
        c,
        record,
        (app) => requestPasswordReset(app, c, values, ctx.resend),
      )
      return sendHookResponse(reply, res)
    },
  )

  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/confirm-password-reset',
    { config: { rateLimitTags: ['confirmPasswordReset'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      const token = await tokenOfBody(ctx.app, c, values, 'passwordReset')
      const res = await quietFlow(
        hooks.onRecordConfirmPasswordResetRequest,
        ctx.app,
        requestInfo(req, values),
        c,
        token?.record ?? null,
        (app) => confirmPasswordReset(app, c, values),
      )
      return sendHookResponse(reply, res)
    },
  )
}
