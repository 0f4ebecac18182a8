/**
 * Filters mean the same on SQLite and on PostgreSQL (`SVC_TEST_PG_URL`, started by
 * test/global-setup.ts): one server on each engine with the same records, the same filters and
 * sorts, the same answers. Covers what PostgreSQL's strict typing would otherwise refuse
 * (constants next to number and bool columns, two bound numbers, NULL order, sort ties).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOn as start, testPgUrl } from './helpers/engines.js'
import type { TestServer } from './helpers/server.js'

const servers: { name: string; t: TestServer }[] = []

beforeAll(async () => {
  testPgUrl()
  for (const [name, pg] of [
    ['sqlite', false],
    ['postgres', true],
  ] as const) {
    const t = await start(pg)
    expect(t.server.app.store.dialect.name).toBe(name)
    const owners = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'owners',
        type: 'base',
        listRule: '',
        fields: [{ name: 'title', type: 'text' }],
      },
    })
    expect(owners.status, JSON.stringify(owners.body)).toBe(200)
    const made = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'items',
        type: 'base',
        listRule: '',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'views', type: 'number' },
          { name: 'published', type: 'bool' },
          { name: 'tags', type: 'select', maxSelect: 3, values: ['a', 'b', 'c'] },
          { name: 'parent', type: 'relation', collectionId: owners.body.id, maxSelect: 1 },
        ],
      },
    })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const owner = await t.api('POST', '/api/collections/owners/records', {
      token: t.suToken,
      body: { title: 'zed' },
    })
    const rows = [
      { title: 'one', views: 7, published: true, tags: ['a', 'b'] },
      { title: 'two', views: 0, published: false, tags: ['c'], parent: owner.body.id },
      { title: 'three', views: 12.5, published: true, tags: [] },
      { title: 'four', views: 7, published: false, tags: ['a'] },
    ]
    for (const body of rows) {
      const res = await t.api('POST', '/api/collections/items/records', { token: t.suToken, body })
      expect(res.status).toBe(200)
    }
    servers.push({ name, t })
  }
})

afterAll(async () => {
  for (const { t } of servers.splice(0)) await t.close()
})

/** The titles a list answers, in order, or the error status and message. */
async function titles(t: TestServer, query: string): Promise<unknown> {
  const res = await t.api('GET', `/api/collections/items/records?${query}`)
  if (res.status !== 200) return { status: res.status, message: res.body?.message }
  return (res.body.items as { title: string }[]).map((r) => r.title)
}

describe('the same filters on SQLite and PostgreSQL', () => {
  const filters = [
    "views = 'abc'",
    "views != 'abc'",
    "views < 'abc'",
    "views > 'abc'",
    "'abc' > views",
    "views = '7'",
    "views >= ' 7.0 '",
    'views = true',
    'published = 1',
    "published = '0'",
    "published = 'true'",
    'published = true',
    '10 > 5',
    '5 > 10',
    "tags ?= 'a'",
    "tags:each != 'c'",
    'tags:length > 1',
    "parent.title = ''",
    "title ~ 'O'",
    // Two values of the filter itself, compared as SQLite compares bound values.
    '7 = false',
    '-0.25 < true',
    "423 = 'a'",
    "'' > 42",
    "'a' >= 11",
    'null = 5',
    'null != 5',
    '323 ~ 32',
    'true ~ 1',
    'views > published',
    '-0.25 <= published',
    "strftime('%Y', title) = ''",
    "strftime('%Y', parent.title) != ''",
  ]
  it.each(filters)('%s', async (filter) => {
    const q = `filter=${encodeURIComponent(filter)}&sort=title`
    const [sqlite, postgres] = await Promise.all(servers.map(({ t }) => titles(t, q)))
    expect(Array.isArray(sqlite), JSON.stringify(sqlite)).toBe(true)
    expect(postgres).toEqual(sqlite)
  })

  it.each(['-views', 'views,-published', 'parent.title', '-parent.title,title', '@rowid', ''])(
    'sort %j (ties in insertion order, NULLs first ascending)',
    async (sort) => {
      const q = `sort=${encodeURIComponent(sort)}`
      const [sqlite, postgres] = await Promise.all(servers.map(({ t }) => titles(t, q)))
      expect(Array.isArray(sqlite), JSON.stringify(sqlite)).toBe(true)
      expect(postgres).toEqual(sqlite)
    },
  )

  it('answers a filter PostgreSQL cannot evaluate as an invalid filter, never a 500', async () => {
    const pg = servers.find((s) => s.name === 'postgres')!.t
    const res = await pg.api(
      'GET',
      `/api/collections/items/records?filter=${encodeURIComponent("title = '\u0000'")}`,
    )
    expect(res.status).toBe(400)
    expect(res.body.message).toBe(
      'Invalid filter: the database cannot evaluate it with these values.',
    )
  })
})
