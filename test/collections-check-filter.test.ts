/**
 * `POST /api/collections/meta/check-filter`: the dashboard's syntax check of rules and filters,
 * compiled by the server's own code (superuser only, clear 400s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

let t: TestServer

beforeAll(async () => {
  t = await startServer()
  const res = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: {
      name: 'posts',
      type: 'base',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'owner', type: 'relation', collectionId: '_pb_users_auth_', maxSelect: 1 },
      ],
    },
  })
  expect(res.status).toBe(200)
})

afterAll(async () => {
  await t?.close()
})

const check = (body: unknown, token: string | null = t.suToken) =>
  t.api('POST', '/api/collections/meta/check-filter', { token, body })

describe('POST /api/collections/meta/check-filter', () => {
  it('accepts valid rules and filters, empty ones too', async () => {
    for (const filter of [
      'owner = @request.auth.id',
      'owner.email ~ "@example.com" && @request.body.title:isset = false',
      '@collection.users.id ?= owner && created > @todayStart',
      '',
    ]) {
      const res = await check({ collection: 'posts', filter, mode: 'rule' })
      expect(res.status, filter).toBe(200)
      expect(res.body).toEqual({ ok: true })
    }
    const res = await check({ collection: 'posts', filter: "title ~ 'a'", mode: 'filter' })
    expect(res.body).toEqual({ ok: true })
  })

  it('answers 400 with the compiler message for a broken rule', async () => {
    const unknown = await check({ collection: 'posts', filter: 'nope = 1', mode: 'rule' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.message).toMatch(/^Invalid rule: unknown field "nope"/)
    const syntax = await check({ collection: 'posts', filter: 'title = ', mode: 'rule' })
    expect(syntax.status).toBe(400)
    expect(syntax.body.message).toMatch(/^Invalid rule: /)
    const modifier = await check({ collection: 'posts', filter: 'title:bogus = 1', mode: 'rule' })
    expect(modifier.status).toBe(400)
  })

  it('answers 400 "Invalid filter: …" in filter mode', async () => {
    const res = await check({ collection: 'posts', filter: 'owner.nope = 1', mode: 'filter' })
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/^Invalid filter: /)
  })

  it('names a missing or wrong input, and 404s an unknown collection', async () => {
    const cases: [unknown, string][] = [
      [{ filter: 'x', mode: 'rule' }, 'Invalid "collection": expected a collection name or id.'],
      [{ collection: 'posts', mode: 'rule' }, 'Invalid "filter": expected a text'],
      [{ collection: 'posts', filter: 'x'.repeat(10_001), mode: 'rule' }, 'Invalid "filter"'],
      [{ collection: 'posts', filter: '' }, 'Invalid "mode": expected "rule" or "filter".'],
      [{ collection: 'posts', filter: '', mode: 'sql' }, 'Invalid "mode"'],
    ]
    for (const [body, message] of cases) {
      const res = await check(body)
      expect(res.status).toBe(400)
      expect(res.body.message).toContain(message)
    }
    const missing = await check({ collection: 'nope', filter: '', mode: 'rule' })
    expect(missing.status).toBe(404)
  })

  it('is for superusers only', async () => {
    const res = await check({ collection: 'posts', filter: '', mode: 'rule' }, null)
    expect(res.status).toBe(401)
  })
})
