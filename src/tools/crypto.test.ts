import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { DecryptError, decrypt, deriveKey, encrypt, isEncrypted } from './crypto.js'

describe('crypto', () => {
  const key = deriveKey('correct horse battery staple')

  it('derives the same 32-byte key from the same secret, another from another', () => {
    expect(key).toHaveLength(32)
    expect(deriveKey('correct horse battery staple').equals(key)).toBe(true)
    expect(deriveKey('correct horse battery stable').equals(key)).toBe(false)
    expect(() => deriveKey('')).toThrow(/must not be empty/)
  })

  it.each([
    ['ascii', '{"smtp":{"password":"hunter2"}}'],
    ['empty', ''],
    ['unicode', 'zażółć gęślą jaźń ✓ 🔐'],
    ['large', 'x'.repeat(200_000)],
  ])('round-trips %s text without leaking it', (_name, plain) => {
    const text = encrypt(plain, key)
    expect(isEncrypted(text)).toBe(true)
    expect(text).toMatch(/^svcenc:v1:[\w-]+\.[\w-]+\.[\w-]*$/)
    if (plain.length > 0) expect(text).not.toContain(plain.slice(0, 20))
    expect(decrypt(text, key)).toBe(plain)
  })

  it('uses a fresh IV every time', () => {
    const a = encrypt('same', key)
    const b = encrypt('same', key)
    expect(a).not.toBe(b)
    expect(a.split('.')[0]).not.toBe(b.split('.')[0])
    expect(decrypt(a, key)).toBe(decrypt(b, key))
  })

  it('accepts a secret string or a raw 32-byte key', () => {
    expect(decrypt(encrypt('hi', 'passphrase'), deriveKey('passphrase'))).toBe('hi')
    const raw = randomBytes(32)
    expect(decrypt(encrypt('hi', raw), raw)).toBe('hi')
    expect(() => encrypt('hi', randomBytes(16))).toThrow(/32 bytes/)
  })

  it('refuses a wrong key with a clear DecryptError', () => {
    const text = encrypt('secret', key)
    const attempt = () => decrypt(text, deriveKey('another key'))
    expect(attempt).toThrow(DecryptError)
    expect(attempt).toThrow(/wrong encryption key or corrupted data/)
  })

  it('refuses altered or malformed texts', () => {
    const text = encrypt('secret value', key)
    const [head, tag, data] = text.split('.') as [string, string, string]
    const flipped = Buffer.from(data, 'base64url')
    flipped[0] = flipped[0]! ^ 1
    expect(() => decrypt(`${head}.${tag}.${flipped.toString('base64url')}`, key)).toThrow(
      DecryptError,
    )
    expect(() => decrypt(`${head}.${tag}`, key)).toThrow(/malformed/)
    expect(() => decrypt(`${head}.AAAA.${data}`, key)).toThrow(/malformed/)
    expect(() => decrypt('{"plain":"json"}', key)).toThrow(/not an encrypted text/)
    expect(isEncrypted('{"plain":"json"}')).toBe(false)
  })
})
