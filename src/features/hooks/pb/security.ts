/**
 * PocketBase's `$security` for `*.pb.js` scripts (its `tools/security`): random strings (crypto
 * and pseudo random, by alphabet or by regex), digests and HMACs as hex, a constant-time equal,
 * HS256 JWTs (`createJWT`, `parseJWT`, `parseUnverifiedJWT`) and AES-GCM `encrypt`/`decrypt`
 * (base64 std of nonce + ciphertext + tag, as Go's `gcm.Seal(nonce, nonce, data, nil)`).
 * Everything is synchronous, as PocketBase's handlers are (so no async JWT library here).
 */
import {
  type CipherGCMTypes,
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto'
import { randomStringByRegex } from './regex-gen.js'
import { strict } from './unsupported.js'

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/** The longest random string a script may ask for (characters). */
const MAX_RANDOM_LENGTH = 1 << 20

/** Seconds PocketBase's JWT checks allow for clock skew. */
const LEEWAY_S = 5

/** A script value as text (a string as it is, nothing as ''). */
function str(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return ''
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${v}`
  return JSON.stringify(v) ?? ''
}

function lengthOf(n: unknown, name: string): number {
  const len = Math.trunc(Number(n))
  if (!Number.isFinite(len) || len < 0 || len > MAX_RANDOM_LENGTH)
    throw new Error(`$security.${name}: the length must be 0..${MAX_RANDOM_LENGTH}`)
  return len
}

function randomFrom(
  len: number,
  alphabet: string,
  pick: (max: number) => number,
  name: string,
): string {
  const chars = Array.from(String(alphabet))
  if (chars.length === 0 && len > 0) throw new Error(`$security.${name}: the alphabet is empty`)
  let out = ''
  for (let i = 0; i < len; i++) out += chars[pick(chars.length)] ?? ''
  return out
}

const cryptoPick = (max: number): number => randomInt(max)
const pseudoPick = (max: number): number => Math.floor(Math.random() * max)

/** Hex digest of `text` (UTF-8). */
const digest = (alg: string) => (text: unknown) =>
  createHash(alg).update(str(text), 'utf8').digest('hex')

/** Hex HMAC of `text` with `secret`. */
const hmac = (alg: string) => (text: unknown, secret: unknown) =>
  createHmac(alg, str(secret)).update(str(text), 'utf8').digest('hex')

/** Go's `subtle.ConstantTimeCompare` of the two strings' bytes. */
function equal(a: unknown, b: unknown): boolean {
  const x = Buffer.from(str(a), 'utf8')
  const y = Buffer.from(str(b), 'utf8')
  return x.length === y.length && timingSafeEqual(x, y)
}

/** A string or PocketBase's byte array as bytes. */
function bytesOf(data: unknown): Buffer {
  if (Array.isArray(data)) return Buffer.from(data.map((n) => Number(n) & 0xff))
  return Buffer.from(str(data), 'utf8')
}

/** The AES key: Go's `aes.NewCipher` takes 16, 24 or 32 bytes. */
function aesKey(key: unknown): { key: Buffer; alg: CipherGCMTypes } {
  const k = Buffer.from(str(key), 'utf8')
  if (![16, 24, 32].includes(k.length)) throw new Error(`crypto/aes: invalid key size ${k.length}`)
  return { key: k, alg: `aes-${k.length * 8}-gcm` as CipherGCMTypes }
}

function encrypt(data: unknown, key: unknown): string {
  const { key: k, alg } = aesKey(key)
  const nonce = randomBytes(12)
  const cipher = createCipheriv(alg, k, nonce)
  const sealed = Buffer.concat([cipher.update(bytesOf(data)), cipher.final(), cipher.getAuthTag()])
  return Buffer.concat([nonce, sealed]).toString('base64')
}

function decrypt(cipherText: unknown, key: unknown): string {
  const { key: k, alg } = aesKey(key)
  const raw = Buffer.from(str(cipherText), 'base64')
  if (raw.length < 12 + 16) throw new Error('cipher: message authentication failed')
  const decipher = createDecipheriv(alg, k, raw.subarray(0, 12))
  decipher.setAuthTag(raw.subarray(raw.length - 16))
  try {
    return Buffer.concat([
      decipher.update(raw.subarray(12, raw.length - 16)),
      decipher.final(),
    ]).toString('utf8')
  } catch {
    throw new Error('cipher: message authentication failed')
  }
}

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url')

/** Go's `json.Marshal` of a map: keys sorted at every level. */
function sortedJson(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const o = value as Record<string, unknown>
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .map((k) => [k, o[k]]),
      )
    }
    return value
  })
}

function createJWT(payload: unknown, signingKey: unknown, secDuration: unknown): string {
  const claims: Record<string, unknown> =
    payload && typeof payload === 'object' ? { ...(payload as Record<string, unknown>) } : {}
  claims.exp = Math.floor(Date.now() / 1000) + Math.trunc(Number(secDuration) || 0)
  const head = b64url(sortedJson({ alg: 'HS256', typ: 'JWT' }))
  const body = b64url(sortedJson(claims))
  const sig = createHmac('sha256', str(signingKey)).update(`${head}.${body}`).digest()
  return `${head}.${body}.${b64url(sig)}`
}

interface Parsed {
  header: Record<string, unknown>
  claims: Record<string, unknown>
  signed: string
  signature: Buffer
}

function decodePart(part: string, what: string): Record<string, unknown> {
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>
  } catch {
    // reported below
  }
  throw new Error(`token is malformed: could not decode the ${what}`)
}

function split(token: unknown): Parsed {
  const parts = str(token).split('.')
  if (parts.length !== 3)
    throw new Error('token is malformed: token contains an invalid number of segments')
  const [h = '', c = '', s = ''] = parts
  return {
    header: decodePart(h, 'header'),
    claims: decodePart(c, 'claims'),
    signed: `${h}.${c}`,
    signature: Buffer.from(s, 'base64url'),
  }
}

/** The `exp`, `nbf` and `iat` checks of PocketBase's JWT parsing (with its leeway). */
function validateClaims(claims: Record<string, unknown>): void {
  const now = Date.now() / 1000
  const num = (k: string): number | null => {
    const v = claims[k]
    if (v === undefined || v === null) return null
    if (typeof v !== 'number') throw new Error(`token has invalid claims: ${k} is invalid`)
    return v
  }
  const exp = num('exp')
  if (exp !== null && now - LEEWAY_S >= exp)
    throw new Error('token has invalid claims: token is expired')
  const nbf = num('nbf')
  if (nbf !== null && now + LEEWAY_S < nbf)
    throw new Error('token has invalid claims: token is not valid yet')
  const iat = num('iat')
  if (iat !== null && now + LEEWAY_S < iat)
    throw new Error('token has invalid claims: token used before issued')
}

function parseUnverifiedJWT(token: unknown): Record<string, unknown> {
  const { claims } = split(token)
  validateClaims(claims)
  return claims
}

function parseJWT(token: unknown, verificationKey: unknown): Record<string, unknown> {
  const { header, claims, signed, signature } = split(token)
  if (header.alg !== 'HS256')
    throw new Error(
      'token is unverifiable: error while executing keyfunc: signing method is invalid',
    )
  const expected = createHmac('sha256', str(verificationKey)).update(signed).digest()
  if (expected.length !== signature.length || !timingSafeEqual(expected, signature))
    throw new Error('token signature is invalid: signature is invalid')
  validateClaims(claims)
  return claims
}

/** The `$security` object of a script's context. */
export function securityGlobal(): object {
  return strict('$security', {
    randomString: (n: unknown) =>
      randomFrom(lengthOf(n, 'randomString'), ALPHANUMERIC, cryptoPick, 'randomString'),
    randomStringWithAlphabet: (n: unknown, alphabet: unknown) =>
      randomFrom(
        lengthOf(n, 'randomStringWithAlphabet'),
        str(alphabet),
        cryptoPick,
        'randomStringWithAlphabet',
      ),
    randomStringByRegex: (pattern: unknown, ...flags: unknown[]) =>
      randomStringByRegex(str(pattern), flags),
    pseudorandomString: (n: unknown) =>
      randomFrom(lengthOf(n, 'pseudorandomString'), ALPHANUMERIC, pseudoPick, 'pseudorandomString'),
    pseudorandomStringWithAlphabet: (n: unknown, alphabet: unknown) =>
      randomFrom(
        lengthOf(n, 'pseudorandomStringWithAlphabet'),
        str(alphabet),
        pseudoPick,
        'pseudorandomStringWithAlphabet',
      ),
    md5: digest('md5'),
    sha256: digest('sha256'),
    sha512: digest('sha512'),
    hs256: hmac('sha256'),
    hs512: hmac('sha512'),
    equal,
    encrypt,
    decrypt,
    createJWT,
    parseJWT,
    parseUnverifiedJWT,
  })
}

/** For the recorder and tests: the same functions outside a script. */
export const security = { encrypt, decrypt, createJWT, parseJWT, parseUnverifiedJWT }
