/**
 * An unknown or malformed expand path is ignored on every response that could carry it (list,
 * view, create, update, batch, auth, realtime): the answer holds what exists, as PocketBase
 * 0.40.4 answers (issue 34; issue 11 had made it a 400).
 */
import { EventSource } from 'eventsource'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

describe('unknown expand paths are ignored, as PocketBase does', () => {
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

  const unknown = [
    'autor',
    'author.nope',
    'title',
    'comments_via_pst',
    'coments_via_post',
    'author..x',
    'author.a.b.c.d.e.f',
  ]

  it('on list and view: 200 with what exists; no expand key when no path was known', async () => {
    for (const expand of unknown) {
      const list = await t.api('GET', `/api/collections/posts/records?expand=${expand}`)
      expect(list.status, expand).toBe(200)
      expect(list.body.items[0].id).toBe(postId)
      const view = await t.api('GET', `/api/collections/posts/records/${postId}?expand=${expand}`)
      expect(view.status).toBe(200)
      // A path with one unknown key is dropped whole (`author.nope` expands nothing).
      expect(list.body.items[0], expand).not.toHaveProperty('expand')
      expect(view.body).not.toHaveProperty('expand')
      const mixed = await su(
        'GET',
        `/api/collections/posts/records/${postId}?expand=author,${expand}`,
      )
      expect(Object.keys(mixed.body.expand), expand).toEqual(['author'])
      expect(mixed.body.expand.author.id).toBe(userId)
    }
  })

  it('on create and update: the write is saved, what exists expanded', async () => {
    const before = await count()
    const created = await su('POST', '/api/collections/posts/records?expand=autor,author', {
      title: 'saved',
      author: userId,
    })
    expect(created.status).toBe(200)
    expect(Object.keys(created.body.expand)).toEqual(['author'])
    expect(await count()).toBe(before + 1)
    const updated = await t.api(
      'PATCH',
      `/api/collections/posts/records/${created.body.id}?expand=autor`,
      {
        body: { title: 'changed' },
      },
    )
    expect(updated.status).toBe(200)
    expect(updated.body.title).toBe('changed')
    expect(updated.body).not.toHaveProperty('expand')
    await su('DELETE', `/api/collections/posts/records/${created.body.id}`)
  })

  it('on batch items', async () => {
    const before = await count()
    const res = await su('POST', '/api/batch', {
      requests: [
        { method: 'POST', url: '/api/collections/posts/records', body: { title: 'one' } },
        {
          method: 'POST',
          url: '/api/collections/posts/records?expand=author.nope,author',
          body: { title: 'two', author: userId },
        },
      ],
    })
    expect(res.status).toBe(200)
    expect(res.body[1].body.expand.author.id).toBe(userId)
    expect(await count()).toBe(before + 2)
    for (const r of res.body as Array<{ body: { id: string } }>)
      await su('DELETE', `/api/collections/posts/records/${r.body.id}`)
  })

  it('on auth responses', async () => {
    const res = await t.api('POST', '/api/collections/users/auth-with-password?expand=posts', {
      body: { identity: 'ann@example.com', password: 'password123' },
    })
    expect(res.status).toBe(200)
    expect(res.body.record).not.toHaveProperty('expand')
    expect(res.body.record.email).toBe('ann@example.com')
    const ok = await t.api(
      'POST',
      '/api/collections/users/auth-with-password?expand=posts_via_author,nope',
      { body: { identity: 'ann@example.com', password: 'password123' } },
    )
    expect(ok.status).toBe(200)
    expect(ok.body.record.expand.posts_via_author.map((p: { id: string }) => p.id)).toEqual([
      postId,
    ])
  })

  it('on realtime events', async () => {
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
