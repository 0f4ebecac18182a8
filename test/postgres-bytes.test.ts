/**
 * The same bytes from both engines: one server on SQLite and one on PostgreSQL (test/global-setup.ts
 * starts it), the same collection (every stored field kind), the same records with the same ids;
 * the raw response texts of the records and collections APIs are compared byte for byte, with
 * only the server-made times (`created`, `updated`) and ids replaced. JSON keeps its key order
 * and text on both (PostgreSQL's `JSON` columns, not `JSONB`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOn } from './helpers/engines.js'
import type { TestServer } from './helpers/server.js'

const servers: { name: string; t: TestServer; ids: string[] }[] = []

const fields = [
  { id: 'fld_title', name: 'title', type: 'text' },
  { id: 'fld_body', name: 'body', type: 'editor' },
  { id: 'fld_n', name: 'n', type: 'number' },
  { id: 'fld_flag', name: 'flag', type: 'bool' },
  { id: 'fld_mail', name: 'mail', type: 'email' },
  { id: 'fld_site', name: 'site', type: 'url' },
  { id: 'fld_day', name: 'day', type: 'date' },
  { id: 'fld_one', name: 'one', type: 'select', maxSelect: 1, values: ['x', 'y', 'z'] },
  { id: 'fld_many', name: 'many', type: 'select', maxSelect: 3, values: ['c', 'b', 'a'] },
  { id: 'fld_data', name: 'data', type: 'json' },
  { id: 'fld_geo', name: 'geo', type: 'geoPoint' },
  {
    id: 'fld_parent',
    name: 'parent',
    type: 'relation',
    collectionId: 'pbc_things00001',
    maxSelect: 1,
  },
  { id: 'fld_refs', name: 'refs', type: 'relation', collectionId: 'pbc_things00001', maxSelect: 5 },
  { id: 'fld_created', name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
  { id: 'fld_updated', name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
]

const rows = [
  {
    id: 'aaaaaaaaaaaaaa1',
    title: 'first',
    body: '<p>Hello <b>world</b></p>',
    n: 12.5,
    flag: true,
    mail: 'a@example.com',
    site: 'https://example.com/x?y=1',
    day: '2024-02-29 13:14:15.678Z',
    one: 'y',
    many: ['b', 'c'],
    data: { z: 1, a: { y: [1, 2.5, 'é'], b: null }, m: 'x"y', big: 1e300, neg: -0.5 },
    geo: { lon: 24.5, lat: -60.25 },
    refs: [],
  },
  {
    id: 'aaaaaaaaaaaaaa2',
    title: 'second',
    n: -7,
    flag: false,
    many: ['a'],
    data: [3, { b: 2, a: 1 }, 'text', true, null],
    parent: 'aaaaaaaaaaaaaa1',
    refs: ['aaaaaaaaaaaaaa1'],
  },
  { id: 'aaaaaaaaaaaaaa3', title: 'third', data: 'just text', n: 0 },
  { id: 'aaaaaaaaaaaaaa4', title: 'fourth', data: 42, many: ['c', 'a', 'b'] },
  { id: 'aaaaaaaaaaaaaa5', title: 'fifth', refs: ['aaaaaaaaaaaaaa2', 'aaaaaaaaaaaaaa1'] },
]

/** A response's text with the server-made times replaced. */
async function text(t: TestServer, path: string): Promise<string> {
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.suToken}` } })
  expect(res.status, path).toBe(200)
  return (await res.text()).replace(
    /"(created|updated)":"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z"/g,
    '"$1":"…"',
  )
}

beforeAll(async () => {
  for (const [name, pg] of [
    ['sqlite', false],
    ['postgres', true],
  ] as const) {
    const t = await startOn(pg)
    expect(t.server.app.store.dialect.name).toBe(name)
    const made = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        id: 'pbc_things00001',
        name: 'things',
        type: 'base',
        listRule: '',
        viewRule: '',
        fields,
        indexes: [
          'CREATE INDEX idx_things_many ON things (many)',
          'CREATE UNIQUE INDEX idx_things_data ON things (data) WHERE data IS NOT NULL AND n > 100',
        ],
      },
    })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    for (const body of rows) {
      const res = await t.api('POST', '/api/collections/things/records', { token: t.suToken, body })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
    }
    servers.push({ name, t, ids: [] })
  }
})

afterAll(async () => {
  for (const { t } of servers.splice(0)) await t.close()
})

/** The texts of `path` on both engines. */
async function both(path: string): Promise<[string, string]> {
  const [a, b] = await Promise.all(servers.map(({ t }) => text(t, path)))
  return [a!, b!]
}

describe('the same bytes on SQLite and PostgreSQL', () => {
  it.each([
    '/api/collections/things/records',
    '/api/collections/things/records?sort=title',
    '/api/collections/things/records?sort=many,-n',
    '/api/collections/things/records?sort=refs,geo',
    '/api/collections/things/records?sort=-data,title',
    '/api/collections/things/records?sort=parent.data,-title',
    '/api/collections/things/records?filter=' + encodeURIComponent("data.a.y ?= 'é'"),
    '/api/collections/things/records?filter=' + encodeURIComponent('data = \'"just text"\''),
    '/api/collections/things/records?filter=' + encodeURIComponent('many = \'["b","c"]\''),
    '/api/collections/things/records?expand=parent,refs&perPage=2&page=2',
    '/api/collections/things/records/aaaaaaaaaaaaaa1',
    '/api/collections/things/records/aaaaaaaaaaaaaa2?expand=refs&fields=id,data,expand.refs.data',
    '/api/collections/things',
  ])('%s', async (path) => {
    const [sqlite, postgres] = await both(path)
    expect(postgres).toBe(sqlite)
  })

  it('keeps JSON as written after an update', async () => {
    const body = { data: { zz: { b: 1, a: [{ d: 1, c: 2 }] }, aa: '' } }
    for (const { t } of servers) {
      const res = await t.api('PATCH', '/api/collections/things/records/aaaaaaaaaaaaaa3', {
        token: t.suToken,
        body,
      })
      expect(res.status).toBe(200)
    }
    const [sqlite, postgres] = await both('/api/collections/things/records/aaaaaaaaaaaaaa3')
    expect(sqlite).toContain('"data":{"zz":{"b":1,"a":[{"d":1,"c":2}]},"aa":""}')
    expect(postgres).toBe(sqlite)
  })

  it('enforces a unique index over a JSON field by its text on both', async () => {
    const outcomes: number[] = []
    for (const { t } of servers) {
      for (const id of ['uniq00000000001', 'uniq00000000002']) {
        const res = await t.api('POST', '/api/collections/things/records', {
          token: t.suToken,
          body: { id, title: id, n: 200, data: { k: [1, 2] } },
        })
        outcomes.push(res.status)
      }
    }
    expect(outcomes).toEqual([200, 400, 200, 400])
  })
})
