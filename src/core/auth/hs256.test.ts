import { createHmac } from 'node:crypto'
import { SignJWT, decodeJwt, jwtVerify } from 'jose'
import { describe, expect, it } from 'vitest'
import { decodeClaims, signHs256, verifyHs256 } from './hs256.js'

const key = new TextEncoder().encode('tokenKey0123456789' + 'collection-secret-abc')
const otherKey = new TextEncoder().encode('another key')
const now = () => Math.floor(Date.now() / 1000)

const b64 = (s: string) => Buffer.from(s).toString('base64url')
/** A token of any header and payload text, signed with `key` over what is given. */
function forge(header: string, payload: string, k: Uint8Array = key): string {
  const input = `${header}.${payload}`
  return `${input}.${createHmac('sha256', k).update(input).digest('base64url')}`
}

/** jose's verdict: the claims, or the error's class name. */
async function jose(token: string, k: Uint8Array): Promise<unknown> {
  try {
    return (await jwtVerify(token, k, { algorithms: ['HS256'] })).payload
  } catch (err) {
    return (err as Error).constructor.name
  }
}
async function ours(token: string, k: Uint8Array): Promise<unknown> {
  try {
    return await verifyHs256(token, k)
  } catch (err) {
    return (err as Error).constructor.name
  }
}

describe('HS256 tokens', () => {
  it('signs byte for byte as jose SignJWT', async () => {
    const cases: Record<string, unknown>[] = [
      { type: 'auth', id: 'abc123def456ghi', collectionId: '_pb_users_auth_', refreshable: true },
      { type: 'file', id: 'x', collectionId: 'y' },
      {
        type: 'auth',
        id: undefined,
        collectionId: 'ü€😀',
        refreshable: false,
        extra: [1, { a: 2 }],
      },
    ]
    for (const c of cases) {
      const exp = now() + 3600
      const expected = await new SignJWT(c)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setExpirationTime(exp)
        .sign(key)
      expect(signHs256({ ...c, exp }, key)).toBe(expected)
    }
  })

  it('refuses a zero-length key, as jose does', async () => {
    expect(() => signHs256({ exp: now() + 10 }, new Uint8Array())).toThrow()
    await expect(
      new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).sign(new Uint8Array()),
    ).rejects.toThrow()
  })

  it('verifies what jose verifies and refuses what it refuses', async () => {
    const good = signHs256({ type: 'auth', id: 'a', exp: now() + 60 }, key)
    const [h, p, s] = good.split('.') as [string, string, string]
    const jsonHeader = (o: unknown) => b64(JSON.stringify(o))
    const tokens = [
      good,
      signHs256({ type: 'auth', id: 'a' }, key), // no exp
      signHs256({ type: 'auth', exp: now() - 1 }, key), // expired
      signHs256({ type: 'auth', exp: now() }, key), // exp == now: expired
      signHs256({ type: 'auth', exp: String(now() + 60) }, key), // exp not a number
      signHs256({ type: 'auth', exp: now() + 60, nbf: now() + 30 }, key), // not yet valid
      signHs256({ type: 'auth', exp: now() + 60, nbf: now() - 30, iat: now() }, key),
      signHs256({ type: 'auth', exp: now() + 60, iat: 'yesterday' }, key),
      signHs256({ type: 'auth', exp: now() + 60, nbf: null }, key),
      forge(h, b64('[1,2]')), // not an object
      forge(h, b64('null')),
      forge(h, b64('{"a":1')), // not JSON
      forge(h, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]).toString('base64url')), // bad UTF-8
      forge(h, ''),
      forge(h, p + 'A'), // length % 4 == 1
      forge(h, p.replace(/.$/, '+')),
      forge(h, b64('{"exp":1,"x":"' + 'y'.repeat(3) + '"}') + '='), // padded
      forge(h, b64('{"a":1}') + '=='),
      forge(h, ` ${b64('{"a":1}')}`),
      forge(jsonHeader({ alg: 'HS256' }), p), // other header, still valid
      forge(jsonHeader({ typ: 'JWT', alg: 'HS256' }), p),
      forge(jsonHeader({ alg: 'HS384', typ: 'JWT' }), p),
      forge(jsonHeader({ alg: 'none', typ: 'JWT' }), p),
      forge(jsonHeader({ alg: 'HS256', typ: 'JWT', crit: ['b64'], b64: false }), p),
      `${h}.${p}.`,
      `${h}.${p}`,
      `${h}.${p}.${s}.x`,
      `${h}.${p}.${s}=`,
      `${h}.${p}.${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`, // another signature
      `${h}.${p}.${s}A`,
      `${h} .${p}.${s}`,
      '',
      'garbage',
      signHs256({ type: 'auth', exp: now() + 60 }, otherKey),
    ]
    for (const t of tokens) {
      expect(await ours(t, key), t).toEqual(await jose(t, key))
      let decoded: unknown = null
      try {
        decoded = decodeJwt(t)
      } catch {
        // null, as decodeClaims answers
      }
      expect(decodeClaims(t), t).toEqual(decoded)
    }
    expect(await ours(good, otherKey)).toEqual(await jose(good, otherKey))
    expect(await ours(good, new Uint8Array())).toEqual(await jose(good, new Uint8Array()))
  })
})
