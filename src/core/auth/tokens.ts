import type { App } from '../app.js'
import type { Collection, TokenConfig } from '../collections/model.js'
import { autogenerateText } from '../fields/text.js'
import type { AuthInfo, RecordData } from '../request-info.js'
import { BEFORE_USER_HOOKS } from './cascade.js'
import { decodeClaims, signHs256, verifyHs256 } from './hs256.js'

/** The token kinds of reference §1.3, each signed with its own collection secret. */
export type TokenType = 'auth' | 'file' | 'verification' | 'passwordReset' | 'emailChange'

const configKey: Record<
  TokenType,
  'authToken' | 'fileToken' | 'verificationToken' | 'passwordResetToken' | 'emailChangeToken'
> = {
  auth: 'authToken',
  file: 'fileToken',
  verification: 'verificationToken',
  passwordReset: 'passwordResetToken',
  emailChange: 'emailChangeToken',
}

function tokenConfig(collection: Collection, type: TokenType): TokenConfig {
  const o = collection.authOptions
  if (!o) throw new Error(`${collection.name} is not an auth collection`)
  return o[configKey[type]]
}

/** The HS256 key: the record's tokenKey plus the collection secret of that token type. */
function signingKey(collection: Collection, record: RecordData, type: TokenType): Uint8Array {
  return new TextEncoder().encode(
    (typeof record.tokenKey === 'string' ? record.tokenKey : '') +
      tokenConfig(collection, type).secret,
  )
}

/**
 * Signs a token for an auth record: flat claims `type`, `id`, `collectionId`, extra claims, and
 * `exp` only (reference §1.3). `duration` in seconds defaults to the collection's setting.
 */
export async function signToken(
  collection: Collection,
  record: RecordData,
  type: TokenType,
  extra: Record<string, unknown> = {},
  duration?: number,
): Promise<string> {
  const seconds = duration && duration > 0 ? duration : tokenConfig(collection, type).duration
  const exp = Math.floor(Date.now() / 1000) + seconds
  const claims = { type, id: record.id, collectionId: collection.id, ...extra, exp }
  return signHs256(claims, signingKey(collection, record, type))
}

/** A new auth token; impersonation tokens are not refreshable. */
export function authToken(
  collection: Collection,
  record: RecordData,
  refreshable = true,
  duration?: number,
): Promise<string> {
  return signToken(collection, record, 'auth', { refreshable }, duration)
}

/** A verified token's owner and claims. */
export interface VerifiedToken extends AuthInfo {
  claims: Record<string, unknown>
}

/**
 * Verifies a token of one of `types`: reads the unverified claims to find the record, then
 * checks the signature with that record's key. Any failure yields null (a guest, not an error).
 */
export async function verifyToken(
  app: App,
  token: string,
  types: readonly TokenType[],
): Promise<VerifiedToken | null> {
  const claims = decodeClaims(token)
  if (!claims) return null
  const { id, collectionId, type } = claims
  if (typeof id !== 'string' || typeof collectionId !== 'string' || typeof type !== 'string')
    return null
  if (!types.includes(type as TokenType)) return null
  const collection = app.registry.find(collectionId)
  if (!collection || collection.type !== 'auth' || collection.id !== collectionId) return null
  const record = await app.records.findById(collection, id)
  if (!record) return null
  try {
    const payload = await verifyHs256(token, signingKey(collection, record, type as TokenType))
    return { record, collection, claims: payload }
  } catch {
    return null
  }
}

/**
 * True when `token` is a valid, unexpired token of `type` signed for `record` as it is now (its
 * current `tokenKey` and the collection's current secret): a single-use token checked again
 * inside the write that consumes it (`single-use.ts`).
 */
export async function tokenSignedFor(
  collection: Collection,
  record: RecordData,
  token: string,
  type: TokenType,
): Promise<boolean> {
  try {
    const payload = await verifyHs256(token, signingKey(collection, record, type))
    return payload.type === type && payload.id === record.id
  } catch {
    return false
  }
}

/** The unverified claims of an `Authorization` header's JWT (already verified upstream). */
export function bearerClaims(
  header: string | undefined,
): (Record<string, unknown> & { token: string }) | null {
  if (!header) return null
  const token = header.replace(/^bearer\s+/i, '').trim()
  const claims = decodeClaims(token)
  return claims ? { ...claims, token } : null
}

/**
 * Binds the rotation of an auth record's `tokenKey` when an update changes its password or email
 * (so every token signed before stops working), unless the body set `tokenKey` itself. Bound on
 * `onRecordUpdate` with id `__svcAuthTokenKeyRotation` before user handlers: they see the new key.
 */
export function bindTokenKeyRotation(app: App): void {
  app.hooks.onRecordUpdate.bind({
    id: '__svcAuthTokenKeyRotation',
    priority: BEFORE_USER_HOOKS,
    func: async (e) => {
      const { collection, record, original } = e
      // NB: the event's body holds the resolved value of every field the body set.
      const keySent = 'tokenKey' in e.request.body
      if (
        collection.type === 'auth' &&
        original &&
        !keySent &&
        (record.password !== original.password || record.email !== original.email)
      ) {
        const field = collection.fields.find((f) => f.name === 'tokenKey')
        if (field) record.tokenKey = autogenerateText(field, '') ?? ''
      }
      await e.next()
    },
  })
}
