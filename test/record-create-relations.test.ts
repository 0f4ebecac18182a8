/**
 * Creates whose relations are checked by the INSERT itself (issue 33): on SQLite and on
 * PostgreSQL (a server on each engine; `SVC_TEST_PG_URL` from the test setup), a missing related record gets the same 400 as a lookup
 * gives, with nothing written and no audit row; with other field errors every error is answered
 * together, in field order; each create writes one audit row, a failed one none; a batch with
 * such a create writes nothing. On PostgreSQL, with only built-in hook handlers, one create's
 * transaction is one round trip (BEGIN, the checked INSERT, the audit row and COMMIT; 4 on
 * 9c44c5b), with the same answers when the INSERT fails there; with a handler of the app's own,
 * the INSERT is awaited inside the hook chain (two round trips) and its error reaches the handler.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startOn } from './helpers/engines.js'
import type { TestServer } from './helpers/server.js'

const MISSING = 'nosuchuser0000'

/** A posts collection with a single and a multi relation to users, and a unique slug. */
async function setUp(t: TestServer): Promise<string[]> {
  const users = await t.api('GET', '/api/collections/users', { token: t.suToken })
  const made = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: {
      name: 'posts',
      type: 'base',
      listRule: '',
      viewRule: '',
      createRule: '',
      fields: [
        { name: 'title', type: 'text', required: true },
        { name: 'slug', type: 'text' },
        { name: 'author', type: 'relation', collectionId: users.body.id, maxSelect: 1 },
        { name: 'editors', type: 'relation', collectionId: users.body.id, maxSelect: 5 },
      ],
      indexes: ["CREATE UNIQUE INDEX idx_posts_slug ON posts (slug) WHERE slug != ''"],
    },
  })
  expect(made.status).toBe(200)
  const ids: string[] = []
  for (let i = 0; i < 3; i++) {
    const u = await t.api('POST', '/api/collections/users/records', {
      body: { email: `u${i}@example.com`, password: 'pass-word-1', passwordConfirm: 'pass-word-1' },
    })
    expect(u.status).toBe(200)
    ids.push(u.body.id as string)
  }
  return ids
}

/** The `record.create` audit rows of `posts`. */
async function auditRows(t: TestServer): Promise<Array<{ recordId: string }>> {
  const filter = encodeURIComponent("collection = 'posts' && action = 'record.create'")
  const res = await t.api(
    'GET',
    `/api/collections/_audit_log/records?perPage=500&filter=${filter}`,
    {
      token: t.suToken,
    },
  )
  expect(res.status).toBe(200)
  return res.body.items
}

const missingBody = (field: string, ids: string[]) => ({
  code: 400,
  status: 400,
  message: 'Failed to create record.',
  data: {
    [field]: {
      code: 'validation_missing_rel_records',
      message: `Failed to find all relation records with the provided ids (missing: ${ids.join(', ')}).`,
      params: { missing: ids },
    },
  },
})

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`creates with relations on ${engine}`, () => {
    let t: TestServer
    let users: string[]
    const post = (body: Record<string, unknown>) =>
      t.api('POST', '/api/collections/posts/records', { body })

    beforeAll(async () => {
      t = await startOn(engine === 'postgres')
      users = await setUp(t)
    })
    afterAll(() => t?.close())

    it('answers a missing related record with the 400 of the lookup, writing nothing', async () => {
      const one = await post({ title: 'a', author: MISSING, editors: [users[0]] })
      expect(one.status).toBe(400)
      expect(one.body).toEqual(missingBody('author', [MISSING]))
      const many = await post({ title: 'b', author: users[0], editors: [users[1], MISSING, 'x2'] })
      expect(many.body).toEqual(missingBody('editors', [MISSING, 'x2']))
      const list = await t.api('GET', '/api/collections/posts/records')
      expect(list.body.totalItems).toBe(0)
      expect(await auditRows(t)).toEqual([])
    })

    it('answers a missing relation with the other field errors, in field order', async () => {
      const res = await post({ title: '', author: MISSING, editors: [users[0]] })
      expect(res.status).toBe(400)
      expect(Object.keys(res.body.data)).toEqual(['title', 'author'])
      expect(res.body.data.title.code).toBe('validation_required')
      expect(res.body.data.author).toEqual(missingBody('author', [MISSING]).data.author)
    })

    it('writes one audit row per create and none for a failed one', async () => {
      const ok = await post({ title: 'c', slug: 'c', author: users[0], editors: users })
      expect(ok.status).toBe(200)
      expect(ok.body).toMatchObject({ author: users[0], editors: users })
      const dup = await post({ title: 'd', slug: 'c', author: users[1] })
      expect(dup.status).toBe(400)
      expect(dup.body.data.slug.code).toBe('validation_not_unique')
      const gone = await post({ title: 'e', author: MISSING })
      expect(gone.status).toBe(400)
      const rows = await auditRows(t)
      expect(rows.map((r) => r.recordId)).toEqual([ok.body.id])
    })

    it('a batch keeps its other creates out when one points at a missing record', async () => {
      const on = await t.api('PATCH', '/api/settings', {
        token: t.suToken,
        body: { batch: { enabled: true } },
      })
      expect(on.status).toBe(200)
      const res = await t.api('POST', '/api/batch', {
        token: t.suToken,
        body: {
          requests: [
            { method: 'POST', url: '/api/collections/posts/records', body: { title: 'f' } },
            {
              method: 'POST',
              url: '/api/collections/posts/records',
              body: { title: 'g', editors: [MISSING] },
            },
          ],
        },
      })
      expect(res.status).toBe(400)
      const titles = await t.api('GET', "/api/collections/posts/records?filter=(title='f')")
      expect(titles.body.totalItems).toBe(0)
      expect((await auditRows(t)).length).toBe(1)
    })
  })
}

/** The statements sent (each `Client.query` call a round trip) while `fn` runs, theirs only. */
async function roundTrips(
  fn: () => Promise<unknown>,
): Promise<Array<{ ahead: string[]; text: string }>> {
  const sent: Array<{ ahead: string[]; text: string; client: pg.Client }> = []
  // NB: the writes of the steps before (a sign-in's origin, audit rows) finish first.
  await new Promise((resolve) => setTimeout(resolve, 500))
  const query = Reflect.get(pg.Client.prototype, 'query') as (...a: unknown[]) => unknown
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    // NB: a round trip of the store's (`pipeline.ts`) lists its statements, the last its own.
    const config = args[0] as { text?: string; statements?: Array<{ sql: string }> } | string
    const text = typeof config === 'string' ? config : (config.text ?? '')
    const ahead =
      typeof config === 'string' ? [] : (config.statements ?? []).slice(0, -1).map((q) => q.sql)
    const squash = (sql: string) => sql.replace(/\s+/g, ' ')
    sent.push({ ahead: ahead.map(squash), text: squash(text), client: this })
    return query.apply(this, args) as never
  })
  try {
    await fn()
  } finally {
    spy.mockRestore()
  }
  // The create's own: from its BEGIN to its COMMIT on the connection that sent the BEGIN. Left
  // out: the request log's batch, the cluster's notification, background jobs on other
  // connections, and the end of a transaction begun before `fn` whose COMMIT was on its way.
  const begin = sent.findIndex((s) => /^BEGIN/.test(s.ahead[0] ?? s.text))
  if (begin < 0) return sent.map(({ ahead, text }) => ({ ahead, text }))
  const own: Array<{ ahead: string[]; text: string }> = []
  for (const s of sent.slice(begin)) {
    if (s.client !== sent[begin]!.client) continue
    own.push({ ahead: s.ahead, text: s.text })
    if (s.text === 'COMMIT' || s.text === 'ROLLBACK') break
  }
  return own
}

describe('round trips of one create on PostgreSQL', () => {
  let t: TestServer
  let users: string[]
  const post = (body: Record<string, unknown>) =>
    t.api('POST', '/api/collections/posts/records', { body })
  beforeAll(async () => {
    t = await startOn(true)
    users = await setUp(t)
    // Warm: the collection's settings and caches are loaded by a first create.
    expect((await post({ title: 'warm', author: users[0] })).status).toBe(200)
  })
  afterAll(() => t?.close())

  it('sends the whole transaction in one: BEGIN, the checked INSERT, the audit row, COMMIT', async () => {
    let status = 0
    const own = await roundTrips(async () => {
      status = (await post({ title: 'rt', author: users[0], editors: [users[1], users[2]] })).status
    })
    expect(status).toBe(200)
    expect(own, JSON.stringify(own)).toHaveLength(1)
    expect(own[0]!.ahead).toHaveLength(3)
    expect(own[0]!.ahead[0]).toBe('BEGIN ISOLATION LEVEL SERIALIZABLE')
    expect(own[0]!.ahead[1]).toMatch(
      /^WITH svc_written AS \(INSERT INTO "posts" .* SELECT .* WHERE \(SELECT COUNT\(\*\) FROM "users"/,
    )
    expect(own[0]!.ahead[2]).toMatch(/^INSERT INTO "_audit_log"/)
    expect(own[0]!.text).toBe('COMMIT')
  })

  it('answers the same 400s when the INSERT fails with the COMMIT, and writes nothing', async () => {
    const missing = await post({ title: 'm', author: users[0], editors: [MISSING] })
    expect(missing.body).toEqual(missingBody('editors', [MISSING]))
    expect((await post({ title: 'u1', slug: 'same', author: users[0] })).status).toBe(200)
    const dup = await post({ title: 'u2', slug: 'same', author: users[1] })
    expect(dup.status).toBe(400)
    expect(dup.body.data).toEqual({
      slug: { code: 'validation_not_unique', message: 'Value must be unique.' },
    })
    const titles = await t.api(
      'GET',
      "/api/collections/posts/records?filter=(title='m'||title='u2')",
    )
    expect(titles.body.totalItems).toBe(0)
  })

  it("with a handler of the app's own, the INSERT is awaited inside the hook: its error reaches it", async () => {
    const seen: string[] = []
    const id = t.server.app.hooks.onRecordCreate.bind(async (e) => {
      try {
        await e.next()
        seen.push('ok')
      } catch (err) {
        seen.push((err as Error).message)
        throw err
      }
    })
    try {
      let status = 0
      const own = await roundTrips(async () => {
        status = (await post({ title: 'h', author: users[0] })).status
      })
      expect(status).toBe(200)
      expect(own.map((s) => s.text)).toEqual([
        expect.stringMatching(/^INSERT INTO "posts"/),
        'COMMIT',
      ])
      const missing = await post({ title: 'h2', author: MISSING })
      expect(missing.body).toEqual(missingBody('author', [MISSING]))
      expect(seen).toEqual(['ok', 'Failed to create record.'])
    } finally {
      t.server.app.hooks.onRecordCreate.unbind(id)
    }
  })
})
