/**
 * Collection definitions answered as PocketBase 0.40.4 answers them (issue 34, the differential
 * corpus's `files` group): system collections guarded, field and index shapes, validation
 * outcomes. On SQLite and on PostgreSQL (`SVC_TEST_PG_URL`, started by test/global-setup.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOn } from './helpers/engines.js'
import type { TestServer } from './helpers/server.js'

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('collection definitions as PocketBase answers them, on %s', (_engine, pg) => {
  let t: TestServer
  const su = () => t.suToken
  const post = (body: unknown) => t.api('POST', '/api/collections', { token: su(), body })
  const patch = (name: string, body: unknown) =>
    t.api('PATCH', `/api/collections/${name}`, { token: su(), body })

  beforeAll(async () => {
    t = await startOn(pg)
  })
  afterAll(() => t.close())

  it('refuses to truncate _superusers (the last superuser cannot go) and keeps them', async () => {
    const res = await t.api('DELETE', '/api/collections/_superusers/truncate', { token: su() })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe(
      'Failed to truncate collection (most likely due to required cascade delete record references).',
    )
    const list = await t.api('GET', '/api/collections/_superusers/records', { token: su() })
    expect(list.status).toBe(200)
    expect(list.body.totalItems).toBe(1)
  })

  it('truncates an auth collection record by record', async () => {
    expect((await post({ name: 'members', type: 'auth' })).status).toBe(200)
    for (const email of ['a@example.com', 'b@example.com']) {
      const made = await t.api('POST', '/api/collections/members/records', {
        token: su(),
        body: { email, password: 'password123', passwordConfirm: 'password123' },
      })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
    }
    const res = await t.api('DELETE', '/api/collections/members/truncate', { token: su() })
    expect(res.status).toBe(204)
    const list = await t.api('GET', '/api/collections/members/records', { token: su() })
    expect(list.body.totalItems).toBe(0)
    void patch
  })
})
