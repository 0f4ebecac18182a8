import { randomBytes, randomFillSync } from 'node:crypto'

/** Lower-case letters and digits: the alphabet of record ids. */
export const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** Letters and digits: the alphabet of random tokens and keys. */
export const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** Random bytes drawn in bulk and handed out one at a time (ids are made on every insert). */
const pool = Buffer.alloc(4096)
let poolAt = pool.length

function nextByte(): number {
  if (poolAt >= pool.length) {
    randomFillSync(pool)
    poolAt = 0
  }
  return pool[poolAt++]!
}

/**
 * A uniformly random string of `length` characters from `alphabet` (≤ 256 characters; CSPRNG
 * bytes with rejection sampling, so there is no modulo bias).
 */
export function randomString(length: number, alphabet: string = TOKEN_ALPHABET): string {
  const n = alphabet.length
  const limit = 256 - (256 % n)
  let out = ''
  while (out.length < length) {
    const b = nextByte()
    if (b < limit) out += alphabet[b % n]
  }
  return out
}

/** A new record id: 15 characters of `[a-z0-9]`. */
export function newId(): string {
  return randomString(15, ID_ALPHABET)
}

/** Random bytes as unpadded base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/**
 * A record id (15 × `[a-z0-9]`) that sorts by creation time: 9 base-36 digits of the
 * millisecond clock, then 6 random characters. Append-only inserts keep a busy table's primary
 * key index cheap (request logs).
 */
export function sortableId(now = Date.now()): string {
  return now.toString(36).padStart(9, '0').slice(-9) + randomString(6, ID_ALPHABET)
}
