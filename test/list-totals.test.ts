import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

// Totals are remembered until anything is committed (core/records/count-cache.ts): every way
// of changing the data must show in the next total.
describe('list totals', () => {
  let t: TestServer
  let user: { id: string; token: string }
  const total = async (query = '', token: string | null = t.suToken): Promise<number> => {
    const res = await t.api('GET', `/api/collections/notes/records?perPage=1${query}`, { token })
    expect(res.status).toBe(200)
    return res.body.totalItems
  }

  beforeAll(async () => {
    t = await startServer()
    const made = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'notes',
        type: 'base',
        listRule: 'owner = @request.auth.id || owner = ""',
        createRule: '',
        deleteRule: '',
        fields: [
          { name: 'n', type: 'number' },
          { name: 'owner', type: 'text' },
        ],
      },
    })
    expect(made.status).toBe(200)
    const u = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'tot@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'tot@example.com', password: 'password123' },
    })
    user = { id: u.body.id, token: login.body.token }
  })
  afterAll(async () => {
    await t?.close()
  })

  it('follows creates, updates, deletes, batches and SQL console writes at once', async () => {
    expect(await total()).toBe(0)
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const r = await t.api('POST', '/api/collections/notes/records', { body: { n: i } })
      ids.push(r.body.id)
      expect(await total()).toBe(i + 1)
      expect(await total()).toBe(i + 1)
    }
    expect(await total('&filter=' + encodeURIComponent('n >= 3'))).toBe(2)
    await t.api('PATCH', `/api/collections/notes/records/${ids[0]}`, {
      token: t.suToken,
      body: { n: 10 },
    })
    expect(await total('&filter=' + encodeURIComponent('n >= 3'))).toBe(3)
    await t.api('DELETE', `/api/collections/notes/records/${ids[1]}`)
    expect(await total()).toBe(4)
    const on = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { batch: { enabled: true } },
    })
    expect(on.status).toBe(200)
    const batch = await t.api('POST', '/api/batch', {
      token: t.suToken,
      body: {
        requests: [1, 2, 3].map((n) => ({
          method: 'POST',
          url: '/api/collections/notes/records',
          body: { n },
        })),
      },
    })
    expect(batch.status).toBe(200)
    expect(await total()).toBe(7)
    expect(await total('&filter=' + encodeURIComponent('n >= 3'))).toBe(4)
    const sql = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: 'DELETE FROM notes WHERE n = 10', write: true },
    })
    expect(sql.status).toBe(200)
    expect(await total()).toBe(6)
    expect(await total('&filter=' + encodeURIComponent('n >= 3'))).toBe(3)
  })

  it('keeps each requester its own total under a rule', async () => {
    const before = await total('', user.token)
    const mine = await t.api('POST', '/api/collections/notes/records', {
      body: { n: 99, owner: user.id },
    })
    expect(mine.status).toBe(200)
    expect(await total('', user.token)).toBe(before + 1)
    // A guest sees only the unowned notes: the same SQL, another value of the rule.
    expect(await total('', null)).toBe(before)
  })
})
