import bcryptjs from 'bcryptjs'
import { decodeProtectedHeader, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'

/** Sign-in and refresh answers around the bcrypt workers and the HS256 signer. */
describe('password sign-in over stored bcrypt hashes, and refresh', () => {
  let t: TestServer
  let id = ''
  const email = 'hashes@example.com'
  const signIn = (identity: string, password: string) =>
    t.api('POST', '/api/collections/users/auth-with-password', { body: { identity, password } })
  const storeHash = (hash: string) =>
    t.server.app.db.run(sql`UPDATE users SET password = ${hash} WHERE id = ${id}`)
  const failed = { code: 400, status: 400, message: 'Failed to authenticate.', data: {} }

  beforeAll(async () => {
    t = await startServer()
    const res = await t.api('POST', '/api/collections/users/records', {
      body: { email, password: 'pässwörd-€-1', passwordConfirm: 'pässwörd-€-1' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    id = res.body.id as string
  })
  afterAll(() => t.close())

  it('stores $2b$ cost 10 hashes that bcryptjs reads, and signs in with a non-ASCII password', async () => {
    const row = await t.server.app.db.get<{ password: string }>(
      sql`SELECT password FROM users WHERE id = ${id}`,
    )
    expect(row!.password).toMatch(/^\$2b\$10\$[./A-Za-z0-9]{53}$/)
    expect(bcryptjs.compareSync('pässwörd-€-1', row!.password)).toBe(true)
    expect((await signIn(email, 'pässwörd-€-1')).status).toBe(200)
    expect((await signIn(email, 'passwörd-€-1')).body).toEqual(failed)
  })

  it('signs in over $2a$, $2b$ and $2y$ hashes; a wrong password is the same 400', async () => {
    const made = bcryptjs.hashSync('1234567890', 4)
    for (const prefix of ['$2a$', '$2b$', '$2y$']) {
      await storeHash(prefix + made.slice(4))
      const ok = await signIn(email, '1234567890')
      expect(ok.status, prefix).toBe(200)
      expect(ok.body.record).toMatchObject({ id, email })
      for (const wrong of ['1234567891', '123456789', '1234567890 ']) {
        const res = await signIn(email, wrong)
        expect(res.status, prefix + wrong).toBe(400)
        expect(res.body).toEqual(failed)
      }
    }
    // OpenBSD's published vector, and a password past bcrypt's 72 bytes (only those count).
    await storeHash('$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW')
    expect((await signIn(email, 'U*U')).status).toBe(200)
    expect((await signIn(email, 'U*U*')).body).toEqual(failed)
    const long = 'x'.repeat(72)
    await storeHash(bcryptjs.hashSync(long + 'tail', 4))
    expect((await signIn(email, long + 'other')).status).toBe(200)
    expect((await signIn(email, long.slice(1))).body).toEqual(failed)
    expect((await signIn('nobody@example.com', '1234567890')).body).toEqual(failed)
  })

  it('refreshes with a new HS256 token of the same claims, the record unchanged', async () => {
    await storeHash(bcryptjs.hashSync('1234567890', 4))
    const first = await signIn(email, '1234567890')
    expect(first.status).toBe(200)
    const res = await t.api('POST', '/api/collections/users/auth-refresh', {
      headers: { authorization: first.body.token as string },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.record).toEqual(first.body.record)
    const token = res.body.token as string
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' })
    const users = t.server.app.collections.get('users')
    const row = await t.server.app.db.get<{ tokenKey: string }>(
      sql`SELECT "tokenKey" FROM users WHERE id = ${id}`,
    )
    const key = new TextEncoder().encode(row!.tokenKey + users.authOptions!.authToken.secret)
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] })
    expect(Object.keys(payload)).toEqual(['type', 'id', 'collectionId', 'refreshable', 'exp'])
    expect(payload).toMatchObject({ type: 'auth', id, collectionId: users.id, refreshable: true })
    const duration = users.authOptions!.authToken.duration
    expect(Math.abs(payload.exp! - Math.floor(Date.now() / 1000) - duration)).toBeLessThan(5)
    // The new token works, a tampered one is a guest.
    const again = await t.api('POST', '/api/collections/users/auth-refresh', {
      headers: { authorization: token },
    })
    expect(again.status).toBe(200)
    const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA')
    const guest = await t.api('POST', '/api/collections/users/auth-refresh', {
      headers: { authorization: tampered },
    })
    expect(guest.status).toBe(401)
  })
})
