import type { FastifyInstance } from 'fastify'
import { finishAuth } from '../../../core/auth/flow.js'
import { requestOtp, verifyOtp } from '../../../core/auth/otp.js'
import { requestEvent, triggerRequest } from '../../../core/request-event.js'
import { readBody } from '../../../http/body.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import { mfaIdOf, sendAuth, type AuthParams, type AuthRouteContext } from '../context.js'
import { recordOfEmail, tagsOf } from '../flow-hooks.js'

/**
 * `POST /request-otp` (inside `onRecordRequestOTPRequest`, with the record of the email or null)
 * and `POST /auth-with-otp` (`onRecordAuthWithOTPRequest` once the OTP is verified) (reference
 * §1.4).
 */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/request-otp',
    { config: { rateLimitTags: ['requestOTP'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      const record = await recordOfEmail(ctx.app, c, values)
      const res = await triggerRequest(
        ctx.app.hooks.onRecordRequestOTPRequest,
        requestEvent(ctx.app, requestInfo(req, values), { collection: c, record }),
        async (e) => e.json(200, await requestOtp(e.app, c, values)),
        tagsOf(c),
      )
      return sendHookResponse(reply, res)
    },
  )

  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/auth-with-otp',
    { config: { rateLimitTags: ['authWithOTP', 'auth'] } },
    async (req, reply) => {
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      const info = requestInfo(req, values, 'otp')
      return sendAuth(reply, async () => {
        // Read before the check, which spends it: the event shows the OTP that was used.
        const otpId = typeof values.otpId === 'string' ? values.otpId : ''
        const otps = ctx.app.collections.find('_otps')
        const otp = otpId !== '' && otps ? await ctx.app.records.findById(otps, otpId) : undefined
        const record = await verifyOtp(ctx.app, c, values, info.ip, ctx.otpAttempts)
        return triggerRequest(
          ctx.app.hooks.onRecordAuthWithOTPRequest,
          requestEvent(ctx.app, info, { collection: c, record, otp: otp ?? null }),
          async (e) => {
            e.response = await finishAuth(e.app, c, e.record, info, 'otp', mfaIdOf(req, values))
          },
          tagsOf(c),
        )
      })
    },
  )
}
