/**
 * Issue 11, points 1–3 and the `expand` part of 18: every request has a budget (expand size and
 * depth, JSON nesting, page numbers), and a client overstepping it gets a precise 400, never a
 * 500 or a stalled server.
 */
import { EventSource } from 'eventsource'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ident, sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let v: unknown = leaf
  for (let i = 0; i < depth; i++) v = [v]
  return v
}
const nestedText = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth)

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

  it('a path deeper than 6 levels or with an empty segment is a 400 naming it', async () => {
    const deep = await t.api(
      'GET',
      '/api/collections/nodes/records?expand=rel.rel.rel.rel.rel.rel.rel',
    )
    expect(deep.status).toBe(400)
    expect(deep.body.message).toBe(
      'Invalid expand path "rel.rel.rel.rel.rel.rel.rel": it is 7 levels deep, at most 6 are allowed.',
    )
    const empty = await t.api('GET', '/api/collections/nodes/records?expand=rel..rel')
    expect(empty.status).toBe(400)
    expect(empty.body.message).toBe('Invalid expand path "rel..rel": a relation name is empty.')
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

describe('unknown expand paths are reported (point 18)', () => {
  let t: TestServer
  let postId: string
  let userId: string
  const su = (method: string, path: string, body?: unknown) =>
    t.api(method, path, { token: t.suToken, body })
  const count = async () =>
    (await su('GET', '/api/collections/posts/records?perPage=1')).body.totalItems as number

  beforeAll(async () => {
    t = await startServer()
    const open = { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '' }
    const posts = await su('POST', '/api/collections', {
      name: 'posts',
      ...open,
      schema: [
        { name: 'title', type: 'text' },
        { name: 'author', type: 'relation', options: { collectionId: '_pb_users_auth_' } },
      ],
    })
    expect(posts.status, JSON.stringify(posts.body)).toBe(200)
    const comments = await su('POST', '/api/collections', {
      name: 'comments',
      ...open,
      schema: [
        { name: 'text', type: 'text' },
        { name: 'post', type: 'relation', options: { collectionId: posts.body.id } },
      ],
    })
    expect(comments.status, JSON.stringify(comments.body)).toBe(200)
    const user = await su('POST', '/api/collections/users/records', {
      email: 'ann@example.com',
      password: 'password123',
      passwordConfirm: 'password123',
      name: 'Ann',
    })
    userId = user.body.id as string
    const post = await su('POST', '/api/collections/posts/records', {
      title: 'P',
      author: userId,
    })
    postId = post.body.id as string
    await su('POST', '/api/collections/comments/records', { text: 'c1', post: postId })
    const settings = await su('PATCH', '/api/settings', {
      batch: { enabled: true, maxRequests: 10, timeout: 3, maxBodySize: 0 },
    })
    expect(settings.status).toBe(200)
  })
  afterAll(() => t.close())

  const cases: [string, string][] = [
    ['autor', 'Invalid expand path "autor": collection "posts" has no relation field "autor".'],
    [
      'author.nope',
      'Invalid expand path "author.nope": collection "users" has no relation field "nope".',
    ],
    [
      'title',
      'Invalid expand path "title": field "title" of collection "posts" is not a relation.',
    ],
    [
      'comments_via_pst',
      'Invalid expand path "comments_via_pst": collection "comments" has no relation field "pst" pointing to "posts".',
    ],
    [
      'coments_via_post',
      'Invalid expand path "coments_via_post": back-relation "coments_via_post" names no collection "coments".',
    ],
  ]

  it('on list and view, even when nothing would be expanded', async () => {
    for (const [expand, message] of cases) {
      const list = await t.api('GET', `/api/collections/posts/records?expand=${expand}`)
      expect(list.status).toBe(400)
      expect(list.body).toEqual({ code: 400, message, data: {} })
      const empty = await t.api(
        'GET',
        `/api/collections/posts/records?filter=${encodeURIComponent("title='none'")}&expand=${expand}`,
      )
      expect(empty.body.message).toBe(message)
      const view = await t.api('GET', `/api/collections/posts/records/${postId}?expand=${expand}`)
      expect(view.status).toBe(400)
      expect(view.body.message).toBe(message)
    }
  })

  it('on create and update, before anything is saved', async () => {
    const before = await count()
    const created = await t.api('POST', '/api/collections/posts/records?expand=autor', {
      body: { title: 'never', author: userId },
    })
    expect(created.status).toBe(400)
    expect(created.body.message).toBe(cases[0]![1])
    expect(await count()).toBe(before)
    const updated = await t.api('PATCH', `/api/collections/posts/records/${postId}?expand=autor`, {
      body: { title: 'changed' },
    })
    expect(updated.status).toBe(400)
    expect(updated.body.message).toBe(cases[0]![1])
    const view = await t.api('GET', `/api/collections/posts/records/${postId}`)
    expect(view.body.title).toBe('P')
  })

  it('on batch items, rolling the batch back', async () => {
    const before = await count()
    const res = await su('POST', '/api/batch', {
      requests: [
        { method: 'POST', url: '/api/collections/posts/records', body: { title: 'one' } },
        {
          method: 'POST',
          url: '/api/collections/posts/records?expand=author.nope',
          body: { title: 'two', author: userId },
        },
      ],
    })
    expect(res.status).toBe(400)
    expect(res.body.data.requests[1].response).toEqual({
      code: 400,
      message: cases[1]![1],
      data: {},
    })
    expect(await count()).toBe(before)
  })

  it('on auth responses', async () => {
    const res = await t.api('POST', '/api/collections/users/auth-with-password?expand=posts', {
      body: { identity: 'ann@example.com', password: 'password123' },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe(
      'Invalid expand path "posts": collection "users" has no relation field "posts".',
    )
    // Refused before the sign-in left any trace: no origin remembered yet.
    const origins = () =>
      su(
        'GET',
        `/api/collections/_authOrigins/records?filter=${encodeURIComponent(`recordRef='${userId}'`)}`,
      )
    expect((await origins()).body.totalItems).toBe(0)
    const ok = await t.api(
      'POST',
      '/api/collections/users/auth-with-password?expand=posts_via_author',
      { body: { identity: 'ann@example.com', password: 'password123' } },
    )
    expect(ok.status).toBe(200)
    expect((await origins()).body.totalItems).toBe(1)
    expect(ok.body.record.expand.posts_via_author.map((p: { id: string }) => p.id)).toEqual([
      postId,
    ])
  })

  it('realtime, where no response can carry a 400, drops an unknown path as PocketBase does', async () => {
    const es = new EventSource(`${t.url}/api/realtime`)
    try {
      const clientId = await new Promise<string>((resolve) => {
        es.addEventListener('SVC_CONNECT', (e) => resolve(JSON.parse(e.data).clientId as string))
      })
      const options = { query: { expand: 'author,autor,a.b.c.d.e.f.g' } }
      const sub = `posts?options=${encodeURIComponent(JSON.stringify(options))}`
      const received: { record: { id: string; expand: Record<string, { id: string }> } }[] = []
      es.addEventListener(sub, (e) => received.push(JSON.parse(e.data)))
      const subscribed = await t.api('POST', '/api/realtime', {
        token: t.suToken,
        body: { clientId, subscriptions: [sub] },
      })
      expect(subscribed.status).toBe(204)
      const created = await su('POST', '/api/collections/posts/records', {
        title: 'live',
        author: userId,
      })
      const deadline = Date.now() + 3000
      while (received.length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10))
      expect(received).toHaveLength(1)
      expect(received[0]!.record.id).toBe(created.body.id)
      expect(Object.keys(received[0]!.record.expand)).toEqual(['author'])
      expect(received[0]!.record.expand.author?.id).toBe(userId)
      await su('DELETE', `/api/collections/posts/records/${created.body.id}`)
    } finally {
      es.close()
    }
  })

  it("valid paths still expand, PocketBase's old collection(field) spelling included", async () => {
    const res = await t.api(
      'GET',
      `/api/collections/posts/records/${postId}?expand=author, comments_via_post,comments(post)`,
      { token: t.suToken },
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.expand.author.id).toBe(userId)
    expect(res.body.expand.comments_via_post.map((c: { text: string }) => c.text)).toEqual(['c1'])
    expect(res.body.expand['comments(post)']).toEqual(res.body.expand.comments_via_post)
  })
})

describe('JSON nesting depth (point 2)', () => {
  let t: TestServer
  let docId: string

  beforeAll(async () => {
    t = await startServer()
    const c = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'docs',
        listRule: 'meta != "x"',
        viewRule: '',
        createRule: '',
        updateRule: '@request.body.meta != "x"',
        schema: [
          { name: 'title', type: 'text' },
          { name: 'meta', type: 'json' },
        ],
      },
    })
    expect(c.status, JSON.stringify(c.body)).toBe(200)
    const doc = await t.api('POST', '/api/collections/docs/records', { body: { title: 'd' } })
    docId = doc.body.id as string
  })
  afterAll(() => t.close())

  const tooDeep = {
    code: 'validation_json_too_deep',
    message: 'The maximum allowed JSON nesting depth is 64 levels.',
    params: { maxDepth: 64 },
  }

  it('a json field takes 64 levels and refuses 65 with a field error', async () => {
    const ok = await t.api('POST', '/api/collections/docs/records', {
      body: { title: 'deep', meta: nested(64) },
    })
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200)
    expect(ok.body.meta).toEqual(nested(64))
    // A string holding JSON is read as JSON: 1 001 levels used to be stored, breaking every
    // later list with a rule or filter on the field (SQLite's JSON functions stop at 1 000).
    for (const meta of [nested(65), { a: nested(64) }, JSON.stringify(nested(1001))]) {
      const res = await t.api('POST', '/api/collections/docs/records', { body: { meta } })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual({ meta: tooDeep })
    }
  })

  it('a body nested 5 000 deep is refused while parsing, whatever the format', async () => {
    const json = await t.api('POST', '/api/collections/docs/records', {
      raw: `{"meta":${nestedText(5000)}}`,
      headers: { 'content-type': 'application/json' },
    })
    expect(json.status).toBe(400)
    expect(json.body.message).toBe(
      'Failed to read the submitted data: the JSON body is nested deeper than 128 levels.',
    )
    const form = await t.api('POST', '/api/collections/docs/records', {
      raw: `@jsonPayload=${encodeURIComponent(`{"meta":${nestedText(5000)}}`)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(form.status).toBe(400)
    expect(form.body.message).toBe(
      'Failed to read the submitted data: @jsonPayload is nested deeper than 128 levels.',
    )
    const fd = new FormData()
    fd.set('meta', nestedText(5000))
    const multipart = await t.api('POST', '/api/collections/docs/records', { raw: fd })
    expect(multipart.status).toBe(400)
    expect(multipart.body.data).toEqual({ meta: tooDeep })
    // The updateRule reads @request.body.meta before validation: still a field error.
    const patch = new FormData()
    patch.set('meta', nestedText(5000))
    const updated = await t.api('PATCH', `/api/collections/docs/records/${docId}`, { raw: patch })
    expect(updated.status).toBe(400)
    expect(updated.body.data).toEqual({ meta: tooDeep })
  })

  it('lists with a rule and a filter on the field keep working, fields= included', async () => {
    const list = await t.api(
      'GET',
      `/api/collections/docs/records?filter=${encodeURIComponent('meta.0.0.0 != 7')}`,
    )
    expect(list.status, JSON.stringify(list.body).slice(0, 300)).toBe(200)
    expect(list.body.totalItems).toBe(2)
    const fields = `meta${'.0'.repeat(3000)}`
    const picked = await t.api('GET', `/api/collections/docs/records?fields=${fields}`)
    expect(picked.status).toBe(200)
    expect(picked.body.items).toHaveLength(2)
  })
})

describe('client mistakes that reached a parser (point 3)', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
    const c = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'docs',
        listRule: '',
        createRule: '',
        schema: [{ name: 'title', type: 'text' }],
      },
    })
    expect(c.status).toBe(200)
  })
  afterAll(() => t.close())

  it('a page past any real offset is a 400 on the records, collections and logs lists', async () => {
    for (const path of ['/api/collections/docs/records', '/api/collections', '/api/logs']) {
      for (const page of ['400000000000000000', '9'.repeat(400), '1000000001']) {
        const res = await t.api('GET', `${path}?page=${page}`, { token: t.suToken })
        expect(res.status, path).toBe(400)
        expect(res.body).toEqual({
          code: 400,
          message: 'Invalid "page" value: must be at most 1000000000.',
          data: {},
        })
      }
      const last = await t.api('GET', `${path}?page=1000000000&perPage=1000`, {
        token: t.suToken,
      })
      expect(last.status, path).toBe(200)
      expect(last.body.items).toEqual([])
      const bad = await t.api('GET', `${path}?page=1e3`, { token: t.suToken })
      expect(bad.body.message).toBe('Invalid "page" value: expected an integer.')
    }
    const perPage = await t.api('GET', '/api/collections/docs/records?perPage=400000000000000000')
    expect(perPage.status).toBe(200)
    expect(perPage.body.perPage).toBe(500)
  })

  it('multipart/form-data without a boundary is a 400', async () => {
    const res = await t.api('POST', '/api/collections/docs/records', {
      raw: 'title=x',
      headers: { 'content-type': 'multipart/form-data' },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      code: 400,
      message:
        'Failed to read the submitted data: multipart/form-data without a boundary parameter.',
      data: {},
    })
    const fd = new FormData()
    fd.set('title', 'with a boundary')
    const ok = await t.api('POST', '/api/collections/docs/records', { raw: fd })
    expect(ok.status).toBe(200)
    expect(ok.body.title).toBe('with a boundary')
  })

  it('a multipart body cut before its closing boundary is a 400 and saves nothing', async () => {
    const before = await t.api('GET', '/api/collections/docs/records', { token: t.suToken })
    const body =
      '--XyZ\r\nContent-Disposition: form-data; name="title"\r\n\r\ncut short\r\n' +
      '--XyZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nsecond'
    const res = await t.api('POST', '/api/collections/docs/records', {
      raw: body,
      headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe(
      'Failed to read the submitted data: malformed multipart body (it ends before the closing boundary).',
    )
    const after = await t.api('GET', '/api/collections/docs/records', { token: t.suToken })
    expect(after.body.totalItems).toBe(before.body.totalItems)
    // The same body, closed, is read; the delimiter may arrive split over chunks of any size.
    const whole = await t.api('POST', '/api/collections/docs/records', {
      raw: `${body}\r\n--XyZ--\r\n`,
      headers: { 'content-type': 'multipart/form-data; boundary="XyZ"' },
    })
    expect(whole.status, JSON.stringify(whole.body)).toBe(200)
  })

  it('form values keep every digit of numbers a double cannot hold', async () => {
    const fd = new FormData()
    fd.set('title', '12345678901234567890')
    const res = await t.api('POST', '/api/collections/docs/records', { raw: fd })
    expect(res.status).toBe(200)
    expect(res.body.title).toBe('12345678901234567890')
    const small = new FormData()
    small.set('title', '12.5')
    expect((await t.api('POST', '/api/collections/docs/records', { raw: small })).body.title).toBe(
      '12.5',
    )
  })
})
