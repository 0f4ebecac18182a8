import { randomBytes, randomInt } from 'node:crypto'

/** Lower-case letters and digits: the alphabet of record ids. */
export const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** Letters and digits: the alphabet of random tokens and keys. */
export const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A uniformly random string of `length` characters from `alphabet` (CSPRNG, no modulo bias). */
export function randomString(length: number, alphabet: string = TOKEN_ALPHABET): string {
  let out = ''
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)]
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
