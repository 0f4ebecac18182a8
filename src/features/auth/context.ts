import type { App } from '../../core/app.js'
import type { OtpAttempts } from '../../core/auth/otp.js'
import type { ResendGuard } from '../../core/auth/token-flows.js'
import type { Collection } from '../../core/collections/model.js'

export { authCollectionResolver, mfaIdOf, sendAuth } from '../../http/auth-reply.js'

/** What every auth route file gets: the app, the throttles, and the collection resolver. */
export interface AuthRouteContext {
  app: App
  resend: ResendGuard
  otpAttempts: OtpAttempts
  /** The auth collection of the path, or 404 with PocketBase's messages. */
  authCollection(idOrName: string): Collection
}

/** Path params of the auth routes. */
export type AuthParams = { collection: string; id?: string }
