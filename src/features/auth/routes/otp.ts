import type { FastifyInstance } from 'fastify'
import { finishAuth } from '../../../core/auth/flow.js'
import { requestOtp, verifyOtp } from '../../../core/auth/otp.js'
import { readBody } from '../../../http/body.js'
import { requestInfo } from '../../../http/request-info.js'
import { mfaIdOf, sendAuth, type AuthParams, type AuthRouteContext } from '../context.js'

/** `POST /request-otp` and `POST /auth-with-otp` (reference §1.4). */
export function register(http: FastifyInstance, ctx: AuthRouteContext): void {
  http.post<{ Params: AuthParams }>(
    '/api/collections/:collection/request-otp',
    { config: { rateLimitTags: ['requestOTP'] } },
    async (req) => {
      const c = ctx.authCollection(req.params.collection)
      const { values } = await readBody(req)
      return requestOtp(ctx.app, c, values)
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
        const record = await verifyOtp(ctx.app, c, values, info.ip, ctx.otpAttempts)
        return finishAuth(ctx.app, c, record, info, 'otp', mfaIdOf(req, values))
      })
    },
  )
}
