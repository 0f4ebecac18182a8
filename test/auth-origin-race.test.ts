import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

/**
 * A user's first sign-ins from one new origin, at the same time (PocketBase's benchmark signs one
 * user in 250 times at once): each records the origin (`_authOrigins`) when it finds none, and a
 * sign-in that finds it recorded meanwhile by another is no failure. Every sign-in succeeds, and
 * each user's origin is there once. Each user signs in twice in a row: the two password checks
 * run side by side on the bcrypt threads; a hook holds each origin's first insert until a second
 * one comes (or 1 s passes: on SQLite transactions run one at a time), so that on PostgreSQL both
 * have checked for the origin before either is written.
 */
describe('simultaneous first sign-ins from one origin', () => {
  let t: TestServer
  const users: string[] = []

  beforeAll(async () => {
    t = await startServer()
    for (let i = 0; i < 15; i++) {
      const res = await t.api('POST', '/api/collections/users/records', {
        body: {
          email: `race${i}@example.com`,
          password: '1234567890',
          passwordConfirm: '1234567890',
        },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      users.push(res.body.id)
    }
    const waiting = new Map<string, () => void>()
    t.server.app.hooks.onRecordCreate.bind(
      async (e) => {
        const key = String(e.record.recordRef)
        const other = waiting.get(key)
        if (other) {
          waiting.delete(key)
          other()
        } else {
          await new Promise<void>((resolve) => {
            waiting.set(key, resolve)
            setTimeout(resolve, 1000)
          })
        }
        await e.next()
      },
      ['_authOrigins'],
    )
  })
  afterAll(async () => {
    await t.close()
  })

  it('all succeed, and each origin is recorded once', async () => {
    const answers = await Promise.all(
      users.flatMap((_, i) =>
        [0, 1].map(() =>
          t.api('POST', '/api/collections/users/auth-with-password', {
            body: { identity: `race${i}@example.com`, password: '1234567890' },
          }),
        ),
      ),
    )
    const failed = answers.filter((a) => a.status !== 200)
    expect(failed.length, JSON.stringify(failed[0]?.body)).toBe(0)
    const origins = await t.api('GET', '/api/collections/_authOrigins/records?perPage=100', {
      token: t.suToken,
    })
    expect(origins.status).toBe(200)
    const mine = origins.body.items.filter((o: { recordRef: string }) =>
      users.includes(o.recordRef),
    )
    expect(mine).toHaveLength(users.length)
  })
})
