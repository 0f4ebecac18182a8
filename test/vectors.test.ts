/**
 * Vector search (`nearestTo`, SPEC §4.2; docs/vectors.md) black-box: a real server, vectors as
 * float32 BLOBs (older JSON-text rows of SQLite: vectors-legacy.test.ts), exact cosine ranking compared with a
 * brute-force ranking computed here, with `filter`, a listRule seen by a user, by vector and by
 * record id (the record left out), after updates and deletes, through the `pocketbase` SDK, and
 * every refused parameter with its message.
 */
import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'
import { prng } from './helpers/fuzz.js'

const DIMS = 16
/** True on the PostgreSQL pass: vectors are BYTEA there. */
const onPostgres = Boolean(process.env.SVC_DATABASE_URL)
const N = 300

// A seeded PRNG, so a failure reproduces.
const rand = prng(15).next
const randomVector = (): number[] => Array.from({ length: DIMS }, () => rand() * 2 - 1)

function cosine(a: number[], b: number[]): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return dot / Math.sqrt(na * nb)
}

interface Doc {
  id: string
  grp: number
  public: boolean
  owner: string
  emb: number[] | null
}

/** The brute-force reference: every candidate scored, sorted, the first `k` ids. */
function bruteForce(docs: Iterable<Doc>, q: number[], k: number, exclude?: string): string[] {
  return [...docs]
    .filter((d) => d.emb !== null && d.id !== exclude)
    .map((d) => ({ id: d.id, s: cosine(q, d.emb!) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => x.id)
}

describe('vector search', () => {
  let t: TestServer
  let userToken: string
  let userId: string
  const docs = new Map<string, Doc>()

  const list = (query: string, token: string | null = t.suToken) =>
    t.api('GET', `/api/collections/docs/records?${query}`, { token })
  const near = (q: number[]) => `nearestTo=${encodeURIComponent(`emb:${JSON.stringify(q)}`)}`

  beforeAll(async () => {
    t = await startServer()
    const user = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'v@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    userId = user.body.id
    userToken = (
      await t.api('POST', '/api/collections/users/auth-with-password', {
        body: { identity: 'v@example.com', password: 'password123' },
      })
    ).body.token
    const created = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'docs',
        type: 'base',
        listRule: 'public = true || owner = @request.auth.id',
        viewRule: 'public = true || owner = @request.auth.id',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'grp', type: 'number' },
          { name: 'public', type: 'bool' },
          { name: 'owner', type: 'text' },
          { name: 'emb', type: 'vector', options: { dimensions: DIMS } },
        ],
      },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const requests: Promise<void>[] = []
    for (let i = 0; i < N; i++) {
      const body = {
        title: `doc ${i}`,
        grp: i % 10,
        public: i % 3 !== 0,
        owner: i % 7 === 0 ? userId : 'someone-else',
        emb: i % 50 === 49 ? null : randomVector(),
      }
      requests.push(
        t.api('POST', '/api/collections/docs/records', { token: t.suToken, body }).then((r) => {
          expect(r.status, JSON.stringify(r.body)).toBe(200)
          docs.set(r.body.id, {
            id: r.body.id,
            grp: body.grp,
            public: body.public,
            owner: body.owner,
            emb: r.body.emb,
          })
        }),
      )
      if (requests.length >= 20) await Promise.all(requests.splice(0))
    }
    await Promise.all(requests)
  }, 60_000)
  afterAll(() => t.close())

  it('stores vectors as float32 BLOBs and answers plain number arrays, rounded to float32', async () => {
    const v = [0.1, -0.2, 1e-3, 123.456, ...Array(DIMS - 4).fill(0.5)]
    const res = await t.api('POST', '/api/collections/docs/records', {
      token: t.suToken,
      body: { title: 'rounding', emb: v, owner: 'x' },
    })
    expect(res.status).toBe(200)
    expect(res.body.emb).toEqual(v.map(Math.fround))
    const read = await t.api('GET', `/api/collections/docs/records/${res.body.id}`, {
      token: t.suToken,
    })
    expect(read.body.emb).toEqual(v.map(Math.fround))
    const raw = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: {
        sql: `SELECT ${onPostgres ? 'pg_typeof(emb)::text' : 'typeof(emb)'} AS t, length(emb) AS n FROM docs WHERE id = '${res.body.id}'`,
      },
    })
    expect(raw.status, JSON.stringify(raw.body)).toBe(200)
    expect(raw.body.rows[0]).toEqual({ t: onPostgres ? 'bytea' : 'blob', n: DIMS * 4 })
    await t.api('DELETE', `/api/collections/docs/records/${res.body.id}`, { token: t.suToken })
  })

  it('ranks by exact cosine similarity, equal to a brute-force ranking', async () => {
    for (let round = 0; round < 5; round++) {
      const q = randomVector()
      const res = await list(`${near(q)}&nearestLimit=25`)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const extra = res.body.items.filter((r: Doc) => !docs.has(r.id))
      expect(extra).toEqual([])
      expect(res.body.items.map((r: Doc) => r.id)).toEqual(bruteForce(docs.values(), q, 25))
      expect(res.body).toMatchObject({ page: 1, perPage: 25, totalItems: 25, totalPages: 1 })
    }
    // nearestLimit defaults to 10 and goes up to 100
    const q = randomVector()
    const dflt = await list(near(q))
    expect(dflt.body.items.map((r: Doc) => r.id)).toEqual(bruteForce(docs.values(), q, 10))
    const most = await list(`${near(q)}&nearestLimit=100`)
    expect(most.body.items.map((r: Doc) => r.id)).toEqual(bruteForce(docs.values(), q, 100))
  })

  it('applies the filter and the listRule (as a user and as a guest)', async () => {
    const q = randomVector()
    const filtered = await list(
      `${near(q)}&nearestLimit=30&filter=${encodeURIComponent('grp < 4')}`,
    )
    expect(filtered.status).toBe(200)
    expect(filtered.body.items.map((r: Doc) => r.id)).toEqual(
      bruteForce(
        [...docs.values()].filter((d) => d.grp < 4),
        q,
        30,
      ),
    )
    const visibleTo = (uid: string) =>
      [...docs.values()].filter((d) => d.public || (uid !== '' && d.owner === uid))
    const asUser = await list(`${near(q)}&nearestLimit=40`, userToken)
    expect(asUser.status).toBe(200)
    const ids = asUser.body.items.map((r: Doc) => r.id)
    expect(ids).toEqual(bruteForce(visibleTo(userId), q, 40))
    // the user's own private records are among the candidates, others' private ones are not
    expect(visibleTo(userId).length).toBeGreaterThan(visibleTo('').length)
    const asGuest = await list(`${near(q)}&nearestLimit=40`, null)
    expect(asGuest.body.items.map((r: Doc) => r.id)).toEqual(bruteForce(visibleTo(''), q, 40))
    // rule and filter together
    const both = await list(
      `${near(q)}&nearestLimit=15&filter=${encodeURIComponent('grp >= 5')}`,
      userToken,
    )
    expect(both.body.items.map((r: Doc) => r.id)).toEqual(
      bruteForce(
        visibleTo(userId).filter((d) => d.grp >= 5),
        q,
        15,
      ),
    )
  })

  it('filters test vectors for null only (they are BLOBs, not JSON)', async () => {
    const empty = await list(`filter=${encodeURIComponent('emb = null')}&perPage=1`)
    expect(empty.body.totalItems).toBe([...docs.values()].filter((d) => d.emb === null).length)
    const path = await list(`filter=${encodeURIComponent('emb.0 > 0')}`)
    expect(path.status).toBe(400)
    expect(path.body.message).toBe('Invalid filter: unknown field "emb.0".')
  })

  it('ranks against a record by id, leaving the record itself out', async () => {
    const ref = [...docs.values()].find((d) => d.emb !== null && d.public)!
    const res = await list(`nearestTo=emb:${ref.id}&nearestLimit=20`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const ids = res.body.items.map((r: Doc) => r.id)
    expect(ids).not.toContain(ref.id)
    expect(ids).toEqual(bruteForce(docs.values(), ref.emb!, 20, ref.id))
    // the reference record must pass the viewRule: a guest cannot rank against a private one
    const hidden = [...docs.values()].find((d) => d.emb !== null && !d.public)!
    expect((await list(`nearestTo=emb:${hidden.id}`, null)).status).toBe(404)
    expect((await list(`nearestTo=emb:nosuchrecord1234`)).status).toBe(404)
    const empty = [...docs.values()].find((d) => d.emb === null)!
    const none = await list(`nearestTo=emb:${empty.id}`)
    expect(none.status).toBe(400)
    expect(none.body.message).toBe(
      'Invalid nearestTo: the record has no value in "emb" to rank by.',
    )
  })

  it('keeps the index in step with creates, updates and deletes', async () => {
    const q = randomVector()
    await list(near(q)) // the index exists from here on
    const ids = [...docs.keys()]
    for (const id of ids.slice(0, 20)) {
      const emb = randomVector()
      const r = await t.api('PATCH', `/api/collections/docs/records/${id}`, {
        token: t.suToken,
        body: { emb },
      })
      expect(r.status).toBe(200)
      docs.get(id)!.emb = r.body.emb
    }
    for (const id of ids.slice(20, 35)) {
      expect(
        (await t.api('DELETE', `/api/collections/docs/records/${id}`, { token: t.suToken })).status,
      ).toBe(204)
      docs.delete(id)
    }
    // one record's vector cleared, one set from null
    const cleared = ids[40]!
    await t.api('PATCH', `/api/collections/docs/records/${cleared}`, {
      token: t.suToken,
      body: { emb: null },
    })
    docs.get(cleared)!.emb = null
    const close = q.map((x) => x * 2)
    const added = await t.api('POST', '/api/collections/docs/records', {
      token: t.suToken,
      body: { title: 'new', grp: 1, public: true, owner: 'x', emb: close },
    })
    docs.set(added.body.id, {
      id: added.body.id,
      grp: 1,
      public: true,
      owner: 'x',
      emb: added.body.emb,
    })
    const res = await list(`${near(q)}&nearestLimit=50`)
    const got = res.body.items.map((r: Doc) => r.id)
    expect(got).toEqual(bruteForce(docs.values(), q, 50))
    expect(got[0]).toBe(added.body.id)
    expect(got).not.toContain(cleared)
  })

  it('passes through the pocketbase SDK getList', async () => {
    const pb = new PocketBase(t.url)
    pb.authStore.save(userToken)
    const q = randomVector()
    const page = await pb
      .collection('docs')
      .getList(1, 10, { nearestTo: `emb:${JSON.stringify(q)}`, nearestLimit: 12 })
    const visible = [...docs.values()].filter((d) => d.public || d.owner === userId)
    expect(page.items.map((r) => r.id)).toEqual(bruteForce(visible, q, 12))
    expect(page.perPage).toBe(12)
  })

  it('refuses bad parameters with precise 400s', async () => {
    const q = JSON.stringify(randomVector())
    const cases: [string, string][] = [
      [
        'nearestTo=emb',
        'Invalid nearestTo: expected <field>:<JSON array of numbers> or <field>:<record id>.',
      ],
      ['nearestTo=nope:[1]', 'Invalid nearestTo: "nope" is not a field of this collection.'],
      ['nearestTo=title:[1]', 'Invalid nearestTo: "title" is not a vector field.'],
      [
        `nearestTo=${encodeURIComponent('emb:[1,2')}`,
        'Invalid nearestTo: the vector is not valid JSON',
      ],
      [
        `nearestTo=${encodeURIComponent('emb:[1,"a"]')}`,
        'Invalid nearestTo: the vector must be a JSON array of finite numbers (at most 3.4e38 in magnitude).',
      ],
      [
        `nearestTo=${encodeURIComponent('emb:[1e39]')}`,
        'Invalid nearestTo: the vector must be a JSON array of finite numbers',
      ],
      [
        `nearestTo=${encodeURIComponent('emb:[1,2,3]')}`,
        `Invalid nearestTo: "emb" has ${DIMS} dimensions, the vector has 3.`,
      ],
      [
        `nearestTo=${encodeURIComponent(`emb:${JSON.stringify(Array(DIMS).fill(0))}`)}`,
        'Invalid nearestTo: the vector is all zeros',
      ],
      [
        `nearestTo=${encodeURIComponent(`emb:${q}`)}&nearestLimit=0`,
        'Invalid nearestLimit: it must be an integer from 1 to 100.',
      ],
      [
        `nearestTo=${encodeURIComponent(`emb:${q}`)}&nearestLimit=101`,
        'Invalid nearestLimit: it must be an integer from 1 to 100.',
      ],
      [`nearestTo=${encodeURIComponent(`emb:${q}`)}&nearestLimit=abc`, 'nearestLimit'],
      ['nearestLimit=5', 'Invalid nearestLimit: it is used only together with nearestTo.'],
      [
        `nearestTo=${encodeURIComponent(`emb:${q}`)}&sort=-created`,
        'Invalid sort: it cannot be combined with nearestTo',
      ],
      [
        `nearestTo=${encodeURIComponent(`emb:${q}`)}&page=2`,
        'Invalid page: it cannot be above 1 with nearestTo',
      ],
      [`nearestTo=${encodeURIComponent(`emb:${q}`)}&filter=${encodeURIComponent('grp >')}`, ''],
    ]
    for (const [query, message] of cases) {
      const res = await list(query)
      expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(400)
      expect(res.body.message, query).toContain(message)
    }
  })
})

describe('an index built while records change', () => {
  let t: TestServer
  afterAll(() => t.close())

  it('ends equal to a brute-force ranking of the final rows; a schema change rebuilds it', async () => {
    t = await startServer()
    const coll = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'live',
        type: 'base',
        fields: [{ name: 'emb', type: 'vector', options: { dimensions: DIMS } }],
      },
    })
    expect(coll.status).toBe(200)
    const rows = new Map<string, Doc>()
    const create = async () => {
      const r = await t.api('POST', '/api/collections/live/records', {
        token: t.suToken,
        body: { emb: randomVector() },
      })
      expect(r.status).toBe(200)
      rows.set(r.body.id, { id: r.body.id, grp: 0, public: true, owner: '', emb: r.body.emb })
    }
    for (let i = 0; i < 10; i++) await Promise.all(Array.from({ length: 20 }, create))
    const q = randomVector()
    const search = () =>
      t.api(
        'GET',
        `/api/collections/live/records?nearestTo=${encodeURIComponent(`emb:${JSON.stringify(q)}`)}&nearestLimit=30`,
        { token: t.suToken },
      )
    const ids = [...rows.keys()]
    // The first search builds the index while creates, updates and deletes commit.
    const writes: Promise<unknown>[] = [search()]
    for (let i = 0; i < 30; i++) writes.push(create())
    for (const id of ids.slice(0, 20)) {
      writes.push(
        t
          .api('PATCH', `/api/collections/live/records/${id}`, {
            token: t.suToken,
            body: { emb: randomVector() },
          })
          .then((r) => {
            rows.get(id)!.emb = r.body.emb
          }),
      )
    }
    for (const id of ids.slice(20, 40)) {
      writes.push(
        t.api('DELETE', `/api/collections/live/records/${id}`, { token: t.suToken }).then(() => {
          rows.delete(id)
        }),
      )
    }
    await Promise.all(writes)
    const res = await search()
    expect(res.status).toBe(200)
    expect(res.body.items.map((r: Doc) => r.id)).toEqual(bruteForce(rows.values(), q, 30))
    // After a schema change (the index is dropped and built again) the ranking is unchanged.
    const current = await t.api('GET', '/api/collections/live', { token: t.suToken })
    const changed = await t.api('PATCH', '/api/collections/live', {
      token: t.suToken,
      body: { fields: [...current.body.fields, { name: 'label', type: 'text' }] },
    })
    expect(changed.status).toBe(200)
    const again = await search()
    expect(again.body.items.map((r: Doc) => r.id)).toEqual(bruteForce(rows.values(), q, 30))
  })
})

describe('with the vectors feature disabled', () => {
  it('nearestTo answers 400', async () => {
    const t = await startServer({ disable: ['vectors'] })
    try {
      const res = await t.api(
        'GET',
        `/api/collections/users/records?nearestTo=${encodeURIComponent('x:[1]')}`,
        { token: t.suToken },
      )
      expect(res.status).toBe(400)
      expect(res.body.message).toBe(
        'Vector search (nearestTo) is not available: the vectors feature is disabled on this server.',
      )
    } finally {
      await t.close()
    }
  })
})
