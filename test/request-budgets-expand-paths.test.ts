/**
 * Issue 11, the `expand` part of point 18: an unknown expand path is a precise 400 on every
 * response that could carry it (list, view, create, update, batch, auth), before anything is
 * saved; realtime, which cannot answer a 400, drops it as PocketBase does.
 */
import { EventSource } from 'eventsource'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

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
      expect(list.body).toEqual({ code: 400, status: 400, message, data: {} })
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
      status: 400,
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
