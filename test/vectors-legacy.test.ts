/**
 * Vectors stored as JSON text by SQLite databases made before the float32 BLOB form (SQLite's
 * dynamic typing let a BLOB column hold text): read back, ranked, rewritten on update. About
 * SQLite itself (a PostgreSQL BYTEA column never held JSON text), so it stays out of the
 * PostgreSQL pass.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

describe('vectors stored before as JSON text', () => {
  let t: TestServer
  afterAll(() => t.close())

  it('read back through the API and rank in vector search', async () => {
    t = await startServer()
    await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'legacy',
        type: 'base',
        listRule: '',
        viewRule: '',
        fields: [
          { name: 'n', type: 'number' },
          { name: 'emb', type: 'vector', options: { dimensions: 3 } },
        ],
      },
    })
    const create = (body: unknown) =>
      t.api('POST', '/api/collections/legacy/records', { token: t.suToken, body })
    const a = await create({ n: 1, emb: [1, 0, 0] })
    const b = await create({ n: 2, emb: [0, 1, 0] })
    expect(b.status).toBe(200)
    // the JSON text form a database made before this change holds
    const write = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: `UPDATE legacy SET emb = '[0.6,0.8,0]' WHERE id = '${b.body.id}'`, write: true },
    })
    expect(write.status, JSON.stringify(write.body)).toBe(200)
    const kind = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: `SELECT typeof(emb) AS t FROM legacy WHERE id = '${b.body.id}'` },
    })
    expect(kind.body.rows[0], JSON.stringify([write.body, kind.body])).toEqual({ t: 'text' })
    const read = await t.api('GET', `/api/collections/legacy/records/${b.body.id}`)
    expect(read.body.emb).toEqual([0.6, 0.8, 0])
    const res = await t.api(
      'GET',
      `/api/collections/legacy/records?nearestTo=${encodeURIComponent('emb:[0,1,0]')}`,
    )
    expect(res.body.items.map((r: { id: string }) => r.id)).toEqual([b.body.id, a.body.id])
    // a schema change of the collection keeps the old row readable, and an update rewrites it
    const coll = await t.api('GET', '/api/collections/legacy', { token: t.suToken })
    const changed = await t.api('PATCH', '/api/collections/legacy', {
      token: t.suToken,
      body: { fields: [...coll.body.fields, { name: 'note', type: 'text' }] },
    })
    expect(changed.status, JSON.stringify(changed.body)).toBe(200)
    expect((await t.api('GET', `/api/collections/legacy/records/${b.body.id}`)).body.emb).toEqual([
      0.6, 0.8, 0,
    ])
    await t.api('PATCH', `/api/collections/legacy/records/${b.body.id}`, {
      token: t.suToken,
      body: { n: 3 },
    })
    const after = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: `SELECT typeof(emb) AS t FROM legacy WHERE id = '${b.body.id}'` },
    })
    expect(after.body.rows[0]).toEqual({ t: 'text' }) // an update that does not touch it leaves it
    await t.api('PATCH', `/api/collections/legacy/records/${b.body.id}`, {
      token: t.suToken,
      body: { emb: [0, 0, 1] },
    })
    const blob = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: `SELECT typeof(emb) AS t FROM legacy WHERE id = '${b.body.id}'` },
    })
    expect(blob.body.rows[0]).toEqual({ t: 'blob' })
    const again = await t.api(
      'GET',
      `/api/collections/legacy/records?nearestTo=${encodeURIComponent('emb:[0,0,1]')}&nearestLimit=1`,
    )
    expect(again.body.items.map((r: { id: string }) => r.id)).toEqual([b.body.id])
  })
})
