import type { App } from '../../core/app.js'
import type { OtpAttempts } from '../../core/auth/otp.js'
import type { ResendGuard } from '../../core/auth/token-flows.js'
import type { Collection } from '../../core/collections/model.js'
import { forbidden, messages, notFound, unauthorized } from '../../core/errors.js'
import type { RequestInfo } from '../../core/request-info.js'

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

/**
 * The auth collection of a route that acts on the signed-in record (auth-refresh, email change),
 * checked in PocketBase's order: the path's collection of any type (404), the token (401), then
 * the token's collection, named in the 403 (a base collection's route is a 403, not a 404).
 */
export function signedInCollection(
  ctx: AuthRouteContext,
  name: string,
  info: RequestInfo,
): { c: Collection; auth: NonNullable<RequestInfo['auth']> } {
  const found = ctx.app.collections.find(name)
  if (!found) throw notFound(messages.invalidCollectionContext)
  if (!info.auth) throw unauthorized(messages.authTokenRequired)
  if (info.auth.collection.id !== found.id) {
    throw forbidden(messages.authCollectionRequired({ collection: info.auth.collection.name }))
  }
  return { c: ctx.authCollection(name), auth: info.auth }
}
