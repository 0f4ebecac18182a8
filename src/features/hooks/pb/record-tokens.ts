/**
 * The tokens a `*.pb.js` script makes for an auth record (`record.newAuthToken()`, …): the same
 * HS256 tokens svcbase's auth routes sign (`core/auth/tokens.ts`: claims `type`, `id`,
 * `collectionId`, the kind's extras, `exp`; key = the record's `tokenKey` + the collection's
 * secret of that kind), signed synchronously with `node:crypto` (`signHs256`), so a handler gets
 * the token at once and svcbase's routes accept it as one of their own.
 */
import type { Collection } from '../../../core/collections/model.js'
import { signHs256 } from '../../../core/auth/hs256.js'
import type { TokenType } from '../../../core/auth/tokens.js'
import type { RecordData } from '../../../core/request-info.js'

const CONFIG = {
  auth: 'authToken',
  file: 'fileToken',
  verification: 'verificationToken',
  passwordReset: 'passwordResetToken',
  emailChange: 'emailChangeToken',
} as const

/**
 * A token of `type` for `record` of the auth collection `c`, valid for `seconds` (the
 * collection's duration of that kind when not positive). A record of another collection is a
 * clear error naming the member.
 */
export function scriptToken(
  member: string,
  c: Collection,
  record: RecordData,
  type: TokenType,
  extra: Record<string, unknown> = {},
  seconds = 0,
): string {
  const config = c.authOptions?.[CONFIG[type]]
  if (c.type !== 'auth' || !config)
    throw new Error(`record.${member}(): "${c.name}" is not an auth collection`)
  const duration = seconds > 0 ? seconds : config.duration
  const claims = {
    type,
    id: record.id,
    collectionId: c.id,
    ...extra,
    exp: Math.floor(Date.now() / 1000) + duration,
  }
  const tokenKey = typeof record.tokenKey === 'string' ? record.tokenKey : ''
  return signHs256(claims, new TextEncoder().encode(tokenKey + config.secret))
}
