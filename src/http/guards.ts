import { forbidden, messages, unauthorized } from '../core/errors.js'
import { isSuperuser, type RequestInfo } from '../core/request-info.js'

/** Throws 401 without a valid token and 403 for a non-superuser (DECISIONS). */
export function requireSuperuser(info: RequestInfo): void {
  if (!info.auth) throw unauthorized(messages.authTokenRequired)
  if (!isSuperuser(info)) throw forbidden(messages.authRecordNotAllowed)
}

/** Throws 401 unless some auth record is signed in. */
export function requireAuth(info: RequestInfo): void {
  if (!info.auth) throw unauthorized(messages.authTokenRequired)
}
