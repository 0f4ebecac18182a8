import type { FastifyInstance } from 'fastify'
import { confirmEmailChange, requestEmailChange } from '../../../core/auth/token-flows.js'
import { requestEvent, triggerRequest } from '../../../core/request-event.js'
import { readBody } from '../../../http/body.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import { signedInCollection, type AuthParams, type AuthRouteContext } from '../context.js'
import { tagsOf, tokenOfBody } from '../flow-hooks.js'

/**
 * `POST /request-email-change` (signed in, same collection; inside
 * `onRecordRequestEmailChangeRequest`, whose `newEmail` a handler may change) and
 * `POST /confirm-email-change` (inside `onRecordConfirmEmailChangeRequest` when the token is
 * valid); both answer 204.
 */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/request-email-change',
    { config: { rateLimitTags: ['requestEmailChange'] } },
    async (req, reply) => {
      const info = requestInfo(req)
      const { c, auth } = signedInCollection(ctx, req.params.collection, info)
      const { values } = await readBody(req)
      const newEmail = typeof values.newEmail === 'string' ? values.newEmail : ''
      const fields = { collection: c, record: auth.record, newEmail }
      const res = await triggerRequest(
        ctx.app.hooks.onRecordRequestEmailChangeRequest,
        requestEvent(ctx.app, { ...info, body: values }, fields),
        async (e) => {
          const body = e.newEmail === newEmail ? values : { ...values, newEmail: e.newEmail }
          await requestEmailChange(e.app, c, e.record, body)
          e.noContent(204)
        },
        tagsOf(c),
      )
      return sendHookResponse(reply, res)
    },
  )

  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/confirm-email-change',
    { config: { rateLimitTags: ['confirmEmailChange'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      const token = await tokenOfBody(ctx.app, c, values, 'emailChange')
      const newEmail = token?.claims.newEmail
      if (!token || typeof newEmail !== 'string') {
        await confirmEmailChange(ctx.app, c, values)
        return reply.code(204).send()
      }
      const fields = { collection: c, record: token.record, newEmail }
      const res = await triggerRequest(
        ctx.app.hooks.onRecordConfirmEmailChangeRequest,
        requestEvent(ctx.app, requestInfo(req, values), fields),
        async (e) => {
          await confirmEmailChange(e.app, c, values)
          e.noContent(204)
        },
        tagsOf(c),
      )
      return sendHookResponse(reply, res)
    },
  )
}
