import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

// Rows equal under a client sort come in the direction of its last key: insertion order after
// an ascending key, newest first after a descending one (core/records/query.ts), on every engine.
describe('list ties', () => {
  let t: TestServer
  /** Record ids in insertion order, with their `n`. */
  const made: { id: string; n: number }[] = []

  const ids = async (query: string): Promise<string[]> => {
    const res = await t.api('GET', `/api/collections/ties/records?perPage=50${query}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.items.map((r: { id: string }) => r.id)
  }
  /** The ids of `made`, grouped by `n` in `nOrder`, each group in `within` order. */
  const expected = (nOrder: 'asc' | 'desc', within: 'inserted' | 'newest') => {
    const ns = [...new Set(made.map((r) => r.n))].sort((a, b) => (nOrder === 'asc' ? a - b : b - a))
    return ns.flatMap((n) => {
      const group = made.filter((r) => r.n === n).map((r) => r.id)
      return within === 'inserted' ? group : group.reverse()
    })
  }

  beforeAll(async () => {
    t = await startServer()
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'ties',
        type: 'base',
        listRule: '',
        createRule: '',
        fields: [
          { name: 'n', type: 'number' },
          { name: 'created', type: 'autodate', onCreate: true },
        ],
        indexes: [
          'CREATE INDEX idx_ties_n ON ties (n)',
          'CREATE INDEX idx_ties_created ON ties (created)',
        ],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // NB: ids are random, so only the row id can give the order of equal rows.
    for (let i = 0; i < 12; i++) {
      const r = await t.api('POST', '/api/collections/ties/records', { body: { n: i % 3 } })
      expect(r.status).toBe(200)
      made.push({ id: r.body.id, n: i % 3 })
    }
    // Every row created in the same millisecond: the sort on `created` ties throughout.
    const same = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: "UPDATE ties SET created = '2025-01-01 00:00:00.000Z'", write: true },
    })
    expect(same.status, JSON.stringify(same.body)).toBe(200)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('after an ascending last key, in insertion order', async () => {
    expect(await ids('&sort=n')).toEqual(expected('asc', 'inserted'))
    expect(await ids('&sort=-created,n')).toEqual(expected('asc', 'inserted'))
    expect(await ids('&sort=created')).toEqual(made.map((r) => r.id))
  })

  it('after a descending last key, newest first', async () => {
    expect(await ids('&sort=-n')).toEqual(expected('desc', 'newest'))
    expect(await ids('&sort=created,-n')).toEqual(expected('desc', 'newest'))
    expect(await ids('&sort= -created')).toEqual(made.map((r) => r.id).reverse())
  })

  it('sort=-created gives the default order, and a named @rowid is not overridden', async () => {
    expect(await ids('&sort=-created')).toEqual(await ids(''))
    expect(await ids('&sort=-n,@rowid')).toEqual(expected('desc', 'inserted'))
    expect(await ids('&sort=n,-@rowid')).toEqual(expected('asc', 'newest'))
  })
})
