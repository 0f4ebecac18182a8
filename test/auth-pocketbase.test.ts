/**
 * Auth as PocketBase 0.40.4 answers it (issue 34), on both engines: emails compared as written —
 * two users may differ only in case, each signs in only as written — unless the collection's
 * unique email index has `COLLATE NOCASE`; and a changed authRule signs out every token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOn } from './helpers/engines.js'
import type { TestServer } from './helpers/server.js'

for (const pg of [false, true]) {
  describe(`emails and their case (${pg ? 'PostgreSQL' : 'SQLite'})`, () => {
    let t: TestServer
    const su = (method: string, path: string, body?: unknown) =>
      t.api(method, path, { token: t.suToken, body })
    const user = (collection: string, email: string) =>
      su('POST', `/api/collections/${collection}/records`, {
        email,
        password: 'password123',
        passwordConfirm: 'password123',
      })
    const signIn = (collection: string, identity: string) =>
      t.api('POST', `/api/collections/${collection}/auth-with-password`, {
        body: { identity, password: 'password123' },
      })

    beforeAll(async () => {
      t = await startOn(pg)
      for (const [name, collate] of [
        ['plain', ''],
        ['nocase', ' COLLATE NOCASE'],
      ] as const) {
        const res = await su('POST', '/api/collections', {
          name,
          type: 'auth',
          indexes: [
            `CREATE UNIQUE INDEX \`idx_email_${name}\` ON \`${name}\` (\`email\`${collate}) WHERE \`email\` != ''`,
          ],
        })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
      }
    })
    afterAll(() => t?.close())

    it('without COLLATE NOCASE: two users differing in case, each signing in as written', async () => {
      expect((await user('plain', 'ann@example.com')).status).toBe(200)
      expect((await user('plain', 'Ann@example.com')).status).toBe(200)
      const lower = await signIn('plain', 'ann@example.com')
      const upper = await signIn('plain', 'Ann@example.com')
      expect([lower.status, upper.status]).toEqual([200, 200])
      expect(lower.body.record.id).not.toBe(upper.body.record.id)
      expect((await signIn('plain', 'ANN@EXAMPLE.COM')).status).toBe(400)
    })

    it('with COLLATE NOCASE: one user, signing in whatever the case', async () => {
      expect((await user('nocase', 'bob@example.com')).status).toBe(200)
      const dup = await user('nocase', 'Bob@Example.com')
      expect(dup.status).toBe(400)
      expect(dup.body.data.email.code).toBe('validation_not_unique')
      const res = await signIn('nocase', 'BOB@EXAMPLE.COM')
      expect(res.status).toBe(200)
      expect(res.body.record.email).toBe('bob@example.com')
    })

    it('a changed authRule signs out every token of the collection, for good', async () => {
      expect((await user('nocase', 'rule@example.com')).status).toBe(200)
      const token = (await signIn('nocase', 'rule@example.com')).body.token as string
      const refresh = () => t.api('POST', '/api/collections/nocase/auth-refresh', { token })
      expect((await refresh()).status).toBe(200)
      // Another change keeps the tokens.
      expect((await su('PATCH', '/api/collections/nocase', { listRule: '' })).status).toBe(200)
      expect((await refresh()).status).toBe(200)
      expect((await su('PATCH', '/api/collections/nocase', { authRule: 'id != ""' })).status).toBe(
        200,
      )
      expect((await refresh()).status).toBe(401)
      expect((await su('PATCH', '/api/collections/nocase', { authRule: '' })).status).toBe(200)
      expect((await refresh()).status).toBe(401)
      expect((await signIn('nocase', 'rule@example.com')).status).toBe(200)
    })
  })
}
