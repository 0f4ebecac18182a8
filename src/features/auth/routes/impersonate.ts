import type { FastifyInstance } from 'fastify'
import { recordAuthResponse } from '../../../core/auth/flow.js'
import { badRequest, messages, notFound, validationError } from '../../../core/errors.js'
import { readBody } from '../../../http/body.js'
import { requireSuperuser } from '../../../http/guards.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import type { AuthParams, AuthRouteContext } from '../context.js'

/**
 * `POST /impersonate/{id}` (superuser): a non-refreshable token for any auth record, answered
 * through `onRecordAuthRequest` (auth method `''`).
 */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/impersonate/:id',
    async (req, reply) => {
      const info = requestInfo(req)
      requireSuperuser(info)
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      const duration = values.duration ?? 0
      if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 0) {
        throw badRequest(messages.validationFailed, {
          duration: validationError('validation_min_greater_equal_than_required', { threshold: 0 }),
        })
      }
      const record = await ctx.app.records.findById(c, req.params.id ?? '')
      if (!record) throw notFound()
      const opts = { refreshable: false, duration }
      return sendHookResponse(reply, await recordAuthResponse(ctx.app, c, record, info, '', opts))
    },
  )
}
