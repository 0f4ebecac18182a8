import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

describe('concurrent writes', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'counters',
        listRule: '',
        viewRule: '',
        createRule: '',
        updateRule: '',
        schema: [
          { name: 'label', type: 'text', unique: true },
          { name: 'hits', type: 'number' },
          {
            name: 'seen',
            type: 'select',
            options: { values: Array.from({ length: 100 }, (_, i) => `v${i}`), maxSelect: 100 },
          },
        ],
      },
    })
    expect(res.status).toBe(200)
  })
  afterAll(() => t.close())

  it('commits 200 overlapping creates and updates exactly once each', async () => {
    const target = await t.api('POST', '/api/collections/counters/records', {
      body: { label: 'shared', hits: 0 },
    })
    const ops: Promise<{ status: number; body: any }>[] = []
    for (let i = 0; i < 100; i++) {
      ops.push(
        t.api('POST', '/api/collections/counters/records', {
          body: { label: `item-${i}`, hits: i },
        }),
      )
      ops.push(
        t.api('PATCH', `/api/collections/counters/records/${target.body.id}`, {
          body: { 'hits+': 1, 'seen+': `v${i}` },
        }),
      )
    }
    const results = await Promise.all(ops)
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200)
    const list = await t.api('GET', '/api/collections/counters/records?perPage=500&skipTotal=0')
    expect(list.body.totalItems).toBe(101)
    const labels = new Set(list.body.items.map((r: any) => r.label))
    expect(labels.size).toBe(101)
    const shared = await t.api('GET', `/api/collections/counters/records/${target.body.id}`)
    expect(shared.body.hits).toBe(100)
    expect(new Set(shared.body.seen).size).toBe(100)
  })
})
