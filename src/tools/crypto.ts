/**
 * Authenticated encryption of small texts at rest (the stored settings): AES-256-GCM with a
 * random 12-byte IV and a 16-byte tag, under a 32-byte key derived from any secret string.
 */

import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto'

/** The prefix and version of every encrypted text; a new scheme gets a new prefix. */
const PREFIX = 'svcenc:v1:'
const IV_BYTES = 12
const TAG_BYTES = 16
const KEY_BYTES = 32
// NB: a fixed salt makes the same secret always give the same key, which is what lets every
// instance (and every restart) read the data; the secret itself carries the entropy.
const SALT = 'svcbase/settings-encryption/v1'

/** Thrown when a text cannot be decrypted: wrong key, tampered or truncated data. */
export class DecryptError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause })
    this.name = 'DecryptError'
  }
}

/**
 * Derives the 32-byte AES key from a secret string (scrypt, fixed salt). Slow by design, so
 * derive once and pass the result to `encrypt`/`decrypt`.
 */
export function deriveKey(secret: string): Buffer {
  if (secret === '') throw new Error('the encryption secret must not be empty')
  return scryptSync(secret, SALT, KEY_BYTES)
}

/** A 32-byte key as is, or a secret string derived into one. */
function keyOf(key: string | Uint8Array): Buffer {
  if (typeof key === 'string') return deriveKey(key)
  if (key.length !== KEY_BYTES) throw new Error(`an AES-256 key has ${KEY_BYTES} bytes`)
  return Buffer.from(key)
}

/** True when `text` has the shape `encrypt` produces (whether or not any key opens it). */
export function isEncrypted(text: string): boolean {
  return text.startsWith(PREFIX)
}

/**
 * Encrypts `plain` with AES-256-GCM: `svcenc:v1:<iv>.<tag>.<ciphertext>`, each part base64url.
 * `key` is a 32-byte key from `deriveKey` or a secret string (derived on every call).
 */
export function encrypt(plain: string, key: string | Uint8Array): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', keyOf(key), iv)
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  const tag = cipher.getAuthTag()
  return `${PREFIX}${[iv, tag, data].map((b) => b.toString('base64url')).join('.')}`
}

/**
 * Decrypts a text made by `encrypt`. Throws `DecryptError` when the text is not one, or when
 * the key is wrong or the data was altered (the GCM tag does not verify).
 */
export function decrypt(text: string, key: string | Uint8Array): string {
  if (!isEncrypted(text))
    throw new DecryptError('not an encrypted text (missing svcenc:v1: prefix)')
  const parts = text.slice(PREFIX.length).split('.')
  const [iv, tag, data] = parts.map((p) => Buffer.from(p, 'base64url'))
  if (parts.length !== 3 || iv?.length !== IV_BYTES || tag?.length !== TAG_BYTES || !data)
    throw new DecryptError('malformed encrypted text')
  const decipher = createDecipheriv('aes-256-gcm', keyOf(key), iv)
  decipher.setAuthTag(tag)
  try {
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8')
  } catch (err) {
    throw new DecryptError('cannot decrypt: wrong encryption key or corrupted data', err)
  }
}

/**
 * PocketBase's encryption of the stored settings (`security.Encrypt`): AES-256-GCM under the key's
 * 32 bytes as they are, the text std-base64 of nonce (12 bytes), ciphertext and tag. Only a key of
 * exactly 32 bytes works, as in PocketBase (`PB_ENCRYPTION_KEY`).
 */
export const pocketBaseCipher = {
  /** True when `key` can be PocketBase's (32 bytes). */
  fits(key: string): boolean {
    return Buffer.byteLength(key) === KEY_BYTES
  },
  encrypt(plain: string, key: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(key), iv)
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return Buffer.concat([iv, data, cipher.getAuthTag()]).toString('base64')
  },
  /** Decrypts; throws `DecryptError` for a wrong key or a text that is not one. */
  decrypt(text: string, key: string): string {
    const raw = Buffer.from(text, 'base64')
    if (!/^[A-Za-z0-9+/]+=*$/.test(text) || raw.length < IV_BYTES + TAG_BYTES)
      throw new DecryptError('not a PocketBase encrypted text')
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(key), raw.subarray(0, IV_BYTES))
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
    try {
      const body = raw.subarray(IV_BYTES, raw.length - TAG_BYTES)
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
    } catch (err) {
      throw new DecryptError('cannot decrypt: wrong encryption key or corrupted data', err)
    }
  },
}
