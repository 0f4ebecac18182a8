/**
 * HS256 JWTs with `node:crypto`'s synchronous HMAC: the tokens jose signs, byte for byte, without
 * WebCrypto's key import and its job on the thread pool (the largest cost of an auth-refresh).
 * Verification takes a fast path for the one header svcbase and PocketBase write; anything else,
 * and every token the fast path does not accept, is judged by jose's `jwtVerify` itself.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { decodeJwt, jwtVerify, type JWTPayload } from 'jose'

/** The protected header of every token: `{"alg":"HS256","typ":"JWT"}`, base64url. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')

const BASE64URL = /^[A-Za-z0-9_-]*$/
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

function mac(key: Uint8Array, input: string): Buffer {
  return createHmac('sha256', key).update(input).digest()
}

/** The compact HS256 JWT of `claims` (in their order) under `key`, as jose's `SignJWT` makes it. */
export function signHs256(claims: Record<string, unknown>, key: Uint8Array): string {
  // As WebCrypto's key import, under jose.
  if (key.length === 0) throw new TypeError('Zero-length key is not supported')
  const input = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`
  return `${input}.${mac(key, input).toString('base64url')}`
}

/** A plain JSON object, as jose's `isObject` tells it. */
function isObject(input: unknown): input is Record<string, unknown> {
  if (typeof input !== 'object' || input === null) return false
  if (Object.prototype.toString.call(input) !== '[object Object]') return false
  const proto = Object.getPrototypeOf(input) as object | null
  return proto === null || Object.getPrototypeOf(proto) === null
}

/** The payload object of a base64url JSON part, or null (as jose's decoders refuse it). */
function decodePart(part: string): Record<string, unknown> | null {
  if (part === '' || !BASE64URL.test(part) || part.length % 4 === 1) return null
  try {
    const value: unknown = JSON.parse(strictUtf8.decode(Buffer.from(part, 'base64url')))
    return isObject(value) ? value : null
  } catch {
    return null
  }
}

/**
 * The unverified claims of a compact JWT, or null where jose's `decodeJwt` throws: plain
 * base64url decoded here, anything else (padding, whitespace) by jose.
 */
export function decodeClaims(token: string): JWTPayload | null {
  const parts = token.split('.')
  const fast = parts.length === 3 ? decodePart(parts[1]!) : null
  if (fast) return fast
  try {
    return decodeJwt(token)
  } catch {
    return null
  }
}

/** The claims of a token with svcbase's header and a valid signature, or null (not judged). */
function fastVerify(token: string, key: Uint8Array): JWTPayload | null {
  const parts = token.split('.')
  if (key.length === 0 || parts.length !== 3 || parts[0] !== HEADER) return null
  const [, payload, signature] = parts as [string, string, string]
  const claims = decodePart(payload)
  if (!claims) return null
  const expected = Buffer.from(mac(key, `${HEADER}.${payload}`).toString('base64url'))
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  const now = Math.floor(Date.now() / 1000)
  const { exp, nbf, iat } = claims
  for (const v of [exp, nbf, iat]) if (v !== undefined && typeof v !== 'number') return null
  if (typeof exp === 'number' && exp <= now) return null
  if (typeof nbf === 'number' && nbf > now) return null
  return claims
}

/**
 * The verified claims of an HS256 token under `key`; throws when jose's `jwtVerify` (algorithm
 * HS256 only, no other option) would.
 */
export async function verifyHs256(token: string, key: Uint8Array): Promise<JWTPayload> {
  const fast = fastVerify(token, key)
  if (fast) return fast
  const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] })
  return payload
}
