import bcryptjs from 'bcryptjs'
import { afterAll, describe, expect, it } from 'vitest'
import { BcryptPool } from './bcrypt-pool.js'

const pool = new BcryptPool(2)
const release = pool.retain()
afterAll(() => release())

/** A deterministic mix of passwords: ASCII of every length around 72 bytes, and others. */
function passwords(): string[] {
  const out: string[] = [
    '1234567890',
    'U*U',
    ' ',
    'a\u0000b',
    'pässwörd',
    '密码密码',
    '😀'.repeat(20),
  ]
  let seed = 7
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
  for (const len of [1, 2, 20, 70, 71, 72, 73, 80, 100]) {
    out.push(Array.from({ length: len }, () => String.fromCharCode(32 + (next() % 95))).join(''))
  }
  out.push('é'.repeat(40), 'a'.repeat(71) + 'é', '\u007f\u0001x')
  return out
}

const withPrefix = (hash: string, prefix: string) => prefix + hash.slice(4)

describe('BcryptPool', () => {
  it('answers as bcryptjs for $2a$, $2b$ and $2y$ hashes, right and wrong passwords', async () => {
    for (const plain of passwords()) {
      const hash = bcryptjs.hashSync(plain, 4)
      for (const prefix of ['$2a$', '$2b$', '$2y$']) {
        const h = withPrefix(hash, prefix)
        for (const candidate of [plain, plain + 'x', plain.slice(0, -1), plain.slice(0, 72)]) {
          if (candidate === '') continue
          expect(await pool.compare(candidate, h), `${candidate} ${h}`).toBe(
            bcryptjs.compareSync(candidate, h),
          )
        }
      }
    }
  })

  it('checks the published OpenBSD vectors', async () => {
    expect(
      await pool.compare('U*U', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'),
    ).toBe(true)
    expect(
      await pool.compare('U*U*', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK'),
    ).toBe(true)
    expect(
      await pool.compare('U*U', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK'),
    ).toBe(false)
  })

  it('hashes to $2b$ that bcryptjs verifies, at the asked cost', async () => {
    for (const plain of passwords()) {
      const hash = await pool.hash(plain, 4)
      expect(hash).toMatch(/^\$2b\$04\$[./A-Za-z0-9]{53}$/)
      expect(bcryptjs.compareSync(plain, hash), plain).toBe(true)
      expect(bcryptjs.compareSync(plain + 'x', hash), plain).toBe(Buffer.byteLength(plain) >= 72)
    }
    const ten = await pool.hash('1234567890', 10)
    expect(ten.startsWith('$2b$10$')).toBe(true)
    expect(await pool.compare('1234567890', ten)).toBe(true)
  })

  it('fails on malformed hashes as bcryptjs does (an error or false)', async () => {
    for (const bad of ['', 'plain', '$2x$04$' + 'a'.repeat(53), '$2a$04$short', '$2a$3$x']) {
      let expected: boolean | string
      try {
        expected = bcryptjs.compareSync('1234567890', bad)
      } catch {
        expected = 'error'
      }
      const got = await pool.compare('1234567890', bad).catch(() => 'error')
      expect(got, bad).toBe(expected)
    }
  })

  it('spreads concurrent jobs over its workers', async () => {
    const hash = bcryptjs.hashSync('1234567890', 6)
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => pool.compare(i % 2 ? 'wrong' : '1234567890', hash)),
    )
    expect(answers).toEqual([true, false, true, false, true, false, true, false])
    expect(pool.running).toBe(2)
  })
})
