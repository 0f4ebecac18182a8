import { forbidden, unauthorized } from '../core/errors.js'
import { isSuperuser, type RequestInfo } from '../core/request-info.js'

/** Throws 401 without a valid token and 403 for a non-superuser (DECISIONS). */
export function requireSuperuser(info: RequestInfo): void {
  if (!info.auth) throw unauthorized('The request requires valid record authorization token.')
  if (!isSuperuser(info))
    throw forbidden('The authorized record is not allowed to perform this action.')
}

/** Throws 401 unless some auth record is signed in. */
export function requireAuth(info: RequestInfo): void {
  if (!info.auth) throw unauthorized('The request requires valid record authorization token.')
}
