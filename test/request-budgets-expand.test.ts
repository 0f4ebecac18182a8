/**
 * Issue 11, point 1 and the point 3 sweep: an expansion has a budget of 10 000 records and 6
 * levels, a client overstepping it gets a precise 400, never a 500 or a stalled server; and an
 * expansion over more ids than one query may bind is bound in chunks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ident, sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'

describe('expand budget (point 1)', () => {
  let t: TestServer
  const N = 25
  const FANOUT = 20

  beforeAll(async () => {
    t = await startServer()
    const su = t.suToken
    const c = await t.api('POST', '/api/collections', {
      token: su,
      body: { name: 'nodes', listRule: '', viewRule: '', schema: [{ name: 'n', type: 'number' }] },
    })
    expect(c.status, JSON.stringify(c.body)).toBe(200)
    const patched = await t.api('PATCH', `/api/collections/${c.body.id}`, {
      token: su,
      body: {
        schema: [
          { name: 'n', type: 'number' },
          { name: 'rel', type: 'relation', options: { collectionId: c.body.id, maxSelect: 50 } },
        ],
      },
    })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    const ids: string[] = []
    for (let i = 0; i < N; i++) {
      const r = await t.api('POST', '/api/collections/nodes/records', { token: su, body: { n: i } })
      ids.push(r.body.id as string)
    }
    // Every record relates to the 20 records after it (wrapping around).
    for (let i = 0; i < N; i++) {
      const rel = Array.from({ length: FANOUT }, (_, k) => ids[(i + k + 1) % N])
      const r = await t.api('PATCH', `/api/collections/nodes/records/${ids[i]}`, {
        token: su,
        body: { rel },
      })
      expect(r.status).toBe(200)
    }
  })
  afterAll(() => t.close())

  it('a fan-out expansion gets a precise 400 while /api/health keeps answering', async () => {
    for (const path of ['rel.rel.rel.rel', 'rel.rel.rel.rel.rel.rel']) {
      let done = false
      const expand = t
        .api('GET', `/api/collections/nodes/records?perPage=${N}&expand=${path}`)
        .finally(() => {
          done = true
        })
      const health: number[] = []
      do health.push((await t.api('GET', '/api/health')).status)
      while (!done)
      const res = await expand
      expect(res.status).toBe(400)
      expect(res.body).toEqual({
        code: 400,
        status: 400,
        message: `Expand limit exceeded: expanding "${path}" would put more than 10000 expanded records in the response. Expand fewer or shallower relations, or ask for fewer records per page.`,
        data: {},
      })
      expect(health.length).toBeGreaterThan(0)
      expect(health.every((s) => s === 200)).toBe(true)
    }
  })

  it('counts every copy of an expanded record against the 10 000 limit', async () => {
    // rel.rel over 25 records: 25 × 20 × (1 + 20) = 10 500 records; over 19: 7 980.
    const over = await t.api('GET', `/api/collections/nodes/records?perPage=25&expand=rel.rel`)
    expect(over.status).toBe(400)
    expect(over.body.message).toMatch(/^Expand limit exceeded: expanding "rel\.rel"/)
    const under = await t.api('GET', `/api/collections/nodes/records?perPage=19&expand=rel.rel`)
    expect(under.status).toBe(200)
    expect(under.body.items).toHaveLength(19)
    for (const item of under.body.items) {
      expect(item.expand.rel).toHaveLength(FANOUT)
      for (const child of item.expand.rel) expect(child.expand.rel).toHaveLength(FANOUT)
    }
  })

  it('a create or update whose expansion is over the budget saves nothing', async () => {
    const all = await t.api('GET', `/api/collections/nodes/records?perPage=${N}`)
    const rel = (all.body.items as { id: string }[]).slice(0, FANOUT).map((x) => x.id)
    const created = await t.api('POST', '/api/collections/nodes/records?expand=rel.rel.rel.rel', {
      token: t.suToken,
      body: { n: 999, rel },
    })
    expect(created.status).toBe(400)
    expect(created.body.message).toMatch(/^Expand limit exceeded: expanding "rel(\.rel)*"/)
    const after = await t.api('GET', '/api/collections/nodes/records?filter=n%3D999')
    expect(after.body.totalItems).toBe(0)
    const target = all.body.items[0] as { id: string; n: number }
    const updated = await t.api(
      'PATCH',
      `/api/collections/nodes/records/${target.id}?expand=rel.rel.rel.rel`,
      { token: t.suToken, body: { n: 1234 } },
    )
    expect(updated.status).toBe(400)
    const unchanged = await t.api('GET', `/api/collections/nodes/records/${target.id}`)
    expect(unchanged.body.n).toBe(target.n)
    // Within the budget, the write answers with its expansion.
    const ok = await t.api('POST', '/api/collections/nodes/records?expand=rel', {
      token: t.suToken,
      body: { n: 998, rel },
    })
    expect(ok.status).toBe(200)
    expect(ok.body.expand.rel).toHaveLength(FANOUT)
  })

  it('a path deeper than 6 levels or with an empty segment is ignored, as PocketBase does', async () => {
    const deep = await t.api(
      'GET',
      '/api/collections/nodes/records?perPage=1&expand=rel.rel.rel.rel.rel.rel.rel',
    )
    expect(deep.status).toBe(200)
    expect(deep.body.items[0]).not.toHaveProperty('expand')
    const empty = await t.api('GET', '/api/collections/nodes/records?perPage=1&expand=rel..rel')
    expect(empty.status).toBe(200)
    expect(empty.body.items[0]).not.toHaveProperty('expand')
  })
})

describe('expand over more ids than one query may bind (point 3 sweep)', () => {
  let t: TestServer
  const TAGS = 33_000 // SQLite binds at most 32 766 parameters per statement
  const SHOWN = 1500
  const tagId = (i: number) => `t${String(i).padStart(14, '0')}`

  beforeAll(async () => {
    t = await startServer()
    const su = t.suToken
    const tags = await t.api('POST', '/api/collections', {
      token: su,
      body: {
        name: 'tags',
        listRule: '',
        viewRule: "label = 'shown'",
        schema: [{ name: 'label', type: 'text' }],
      },
    })
    const multi = { collectionId: tags.body.id, maxSelect: 100_000 }
    for (const name of ['posts', 'notes']) {
      const c = await t.api('POST', '/api/collections', {
        token: su,
        body: {
          name,
          listRule: '',
          viewRule: '',
          schema: [{ name: 'tags', type: 'relation', options: multi }],
        },
      })
      expect(c.status, JSON.stringify(c.body)).toBe(200)
    }
    // Written straight to the database: the records API validates fewer ids per request.
    const all = Array.from({ length: TAGS }, (_, i) => tagId(i))
    await t.server.app.db.transaction(async (tx) => {
      for (const [i, id] of all.entries()) {
        const label = i < SHOWN ? 'shown' : 'hidden'
        await tx.run(sql`INSERT INTO ${ident('tags')} (id, label) VALUES (${id}, ${label})`)
      }
      await tx.run(
        sql`INSERT INTO ${ident('posts')} (id, tags) VALUES (${'p00000000000001'}, ${JSON.stringify(all)})`,
      )
      // One note relates to tags bound in two different chunks of ids.
      const noteTags = JSON.stringify([tagId(10), tagId(1200)])
      await tx.run(
        sql`INSERT INTO ${ident('notes')} (id, tags) VALUES (${'n00000000000001'}, ${noteTags})`,
      )
    })
  })
  afterAll(() => t.close())

  it('binds the ids in chunks: what may be seen is expanded, the rest is over the budget', async () => {
    const guest = await t.api('GET', '/api/collections/posts/records?expand=tags.notes_via_tags')
    expect(guest.status, JSON.stringify(guest.body).slice(0, 300)).toBe(200)
    const shown = guest.body.items[0].expand.tags as { id: string; expand: any }[]
    expect(shown.map((x) => x.id)).toEqual(Array.from({ length: SHOWN }, (_, i) => tagId(i)))
    const withNotes = shown.filter((x) => x.expand.notes_via_tags !== undefined)
    expect(withNotes.map((x) => x.id)).toEqual([tagId(10), tagId(1200)])
    for (const x of withNotes)
      expect(x.expand.notes_via_tags.map((n: { id: string }) => n.id)).toEqual(['n00000000000001'])
    const su = await t.api('GET', '/api/collections/posts/records?expand=tags', {
      token: t.suToken,
    })
    expect(su.status).toBe(400)
    expect(su.body.message).toMatch(/^Expand limit exceeded: expanding "tags" would put more/)
  })

  it('checks that related ids exist in chunks too: a create with all of them is saved', async () => {
    const all = Array.from({ length: TAGS }, (_, i) => tagId(i))
    const res = await t.api('POST', '/api/collections/notes/records', {
      token: t.suToken,
      body: { tags: all },
    })
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200)
    expect(res.body.tags).toHaveLength(TAGS)
    const missing = await t.api('POST', '/api/collections/notes/records', {
      token: t.suToken,
      body: { tags: [...all, 'zzzzzzzzzzzzzzz'] },
    })
    expect(missing.status).toBe(400)
    expect(JSON.stringify(missing.body.data.tags)).toContain('zzzzzzzzzzzzzzz')
  })
})
