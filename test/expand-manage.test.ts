import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

describe('expand', () => {
  let t: TestServer
  let su: string
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    t = await startServer()
    su = t.suToken
    const mk = async (body: Record<string, unknown>) => {
      const res = await t.api('POST', '/api/collections', { token: su, body })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.id as string
    }
    const authors = await mk({
      name: 'authors',
      listRule: '',
      viewRule: '',
      schema: [{ name: 'name', type: 'text' }],
    })
    const secrets = await mk({ name: 'secrets', schema: [{ name: 'code', type: 'text' }] })
    const posts = await mk({
      name: 'posts',
      listRule: '',
      viewRule: '',
      schema: [
        { name: 'title', type: 'text' },
        { name: 'author', type: 'relation', options: { collectionId: authors, maxSelect: 1 } },
        { name: 'coauthors', type: 'relation', options: { collectionId: authors, maxSelect: 5 } },
        { name: 'secret', type: 'relation', options: { collectionId: secrets, maxSelect: 1 } },
      ],
    })
    await mk({
      name: 'comments',
      listRule: '',
      viewRule: "text != 'hidden'",
      schema: [
        { name: 'text', type: 'text' },
        { name: 'post', type: 'relation', options: { collectionId: posts, maxSelect: 1 } },
      ],
    })
    const rec = async (c: string, body: Record<string, unknown>) => {
      const res = await t.api('POST', `/api/collections/${c}/records`, { token: su, body })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.id as string
    }
    ids.ann = await rec('authors', { name: 'Ann' })
    ids.bob = await rec('authors', { name: 'Bob' })
    ids.s = await rec('secrets', { code: 'xyz' })
    ids.post = await rec('posts', {
      title: 'P1',
      author: ids.ann,
      coauthors: [ids.bob, ids.ann],
      secret: ids.s,
    })
    ids.c1 = await rec('comments', { text: 'first', post: ids.post })
    ids.c2 = await rec('comments', { text: 'hidden', post: ids.post })
  })
  afterAll(() => t.close())

  it('expands single and multiple relations', async () => {
    const res = await t.api(
      'GET',
      `/api/collections/posts/records/${ids.post}?expand=author,coauthors`,
    )
    expect(res.status).toBe(200)
    expect(res.body.expand.author).toMatchObject({
      id: ids.ann,
      name: 'Ann',
      collectionName: 'authors',
    })
    expect(res.body.expand.coauthors.map((a: any) => a.name)).toEqual(['Bob', 'Ann'])
  })

  it('omits relations the requester may not view, and unknown paths, as PocketBase does', async () => {
    const guest = await t.api('GET', `/api/collections/posts/records/${ids.post}?expand=secret`)
    expect(guest.status).toBe(200)
    expect(guest.body.expand).toEqual({})
    const none = await t.api(
      'GET',
      `/api/collections/posts/records/${ids.post}?expand=author,secret,nope`,
    )
    expect(none.status).toBe(200)
    expect(Object.keys(none.body.expand)).toEqual(['author'])
    const plain = await t.api('GET', `/api/collections/posts/records/${ids.post}`)
    expect(plain.body.expand).toBeUndefined()
    const asSu = await t.api('GET', `/api/collections/posts/records/${ids.post}?expand=secret`, {
      token: su,
    })
    expect(asSu.body.expand.secret.code).toBe('xyz')
  })

  it('expands back-relations with each record checked by its viewRule', async () => {
    const res = await t.api('GET', `/api/collections/posts/records?expand=comments_via_post`)
    const post = res.body.items.find((p: any) => p.id === ids.post)
    expect(post.expand.comments_via_post.map((c: any) => c.text)).toEqual(['first'])
    const su2 = await t.api(
      'GET',
      `/api/collections/posts/records/${ids.post}?expand=comments_via_post`,
      { token: su },
    )
    expect(su2.body.expand.comments_via_post).toHaveLength(2)
  })

  it('expands nested paths', async () => {
    const res = await t.api(
      'GET',
      `/api/collections/comments/records/${ids.c1}?expand=post.author,post.comments_via_post`,
    )
    expect(res.body.expand.post.expand.author.name).toBe('Ann')
    expect(res.body.expand.post.expand.comments_via_post.map((c: any) => c.id)).toEqual([ids.c1])
  })

  it('expands on create and update responses too', async () => {
    const created = await t.api('POST', '/api/collections/posts/records?expand=author', {
      token: su,
      body: { title: 'P2', author: ids.bob },
    })
    expect(created.body.expand.author.name).toBe('Bob')
    const updated = await t.api(
      'PATCH',
      `/api/collections/posts/records/${created.body.id}?expand=author`,
      { token: su, body: { author: ids.ann } },
    )
    expect(updated.body.expand.author.name).toBe('Ann')
  })
})

describe('manageRule', () => {
  let t: TestServer
  let staffToken: string
  let userToken: string
  let memberId: string

  beforeAll(async () => {
    t = await startServer()
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'members',
        type: 'auth',
        listRule: '@request.auth.id != ""',
        viewRule: '@request.auth.id != ""',
        createRule: '',
        updateRule: 'id = @request.auth.id || @request.auth.staff = true',
        schema: [{ name: 'staff', type: 'bool' }],
        authOptions: { manageRule: '@request.auth.staff = true' },
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const make = async (email: string, staff: boolean) => {
      const r = await t.api('POST', '/api/collections/members/records', {
        token: t.suToken,
        body: { email, password: 'password123', passwordConfirm: 'password123', staff },
      })
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      const login = await t.api('POST', '/api/collections/members/auth-with-password', {
        body: { identity: email, password: 'password123' },
      })
      return { id: r.body.id as string, token: login.body.token as string }
    }
    staffToken = (await make('staff@example.com', true)).token
    const u = await make('user@example.com', false)
    userToken = u.token
    memberId = (await make('member@example.com', false)).id
  })
  afterAll(() => t.close())

  it('shows email to managers only (and to the record itself)', async () => {
    const asUser = await t.api('GET', `/api/collections/members/records/${memberId}`, {
      token: userToken,
    })
    expect(asUser.body.email).toBeUndefined()
    const asStaff = await t.api('GET', `/api/collections/members/records/${memberId}`, {
      token: staffToken,
    })
    expect(asStaff.body.email).toBe('member@example.com')
    const list = await t.api('GET', '/api/collections/members/records?sort=created', {
      token: staffToken,
    })
    expect(list.body.items.every((r: any) => typeof r.email === 'string')).toBe(true)
  })

  it('lets managers change email, verified and password without oldPassword; others may not', async () => {
    const denied = await t.api('PATCH', `/api/collections/members/records/${memberId}`, {
      token: userToken,
      body: { verified: true },
    })
    expect(denied.status).toBe(404)
    const self = await t.api('POST', '/api/collections/members/auth-with-password', {
      body: { identity: 'member@example.com', password: 'password123' },
    })
    const selfVerify = await t.api('PATCH', `/api/collections/members/records/${memberId}`, {
      token: self.body.token,
      body: { verified: true },
    })
    expect(selfVerify.status).toBe(400)
    expect(selfVerify.body.data.verified.code).toBe('validation_values_mismatch')
    const selfPassword = await t.api('PATCH', `/api/collections/members/records/${memberId}`, {
      token: self.body.token,
      body: { password: 'newpassword1', passwordConfirm: 'newpassword1' },
    })
    expect(selfPassword.body.data.oldPassword.code).toBe('validation_required')
    const managed = await t.api('PATCH', `/api/collections/members/records/${memberId}`, {
      token: staffToken,
      body: {
        verified: true,
        email: 'moved@example.com',
        password: 'newpassword1',
        passwordConfirm: 'newpassword1',
      },
    })
    expect(managed.status, JSON.stringify(managed.body)).toBe(200)
    expect(managed.body).toMatchObject({ verified: true, email: 'moved@example.com' })
    const relogin = await t.api('POST', '/api/collections/members/auth-with-password', {
      body: { identity: 'moved@example.com', password: 'newpassword1' },
    })
    expect(relogin.status).toBe(200)
    // The password change rotated tokenKey: the old token is now a guest's.
    const old = await t.api('GET', `/api/collections/members/records/${memberId}`, {
      token: self.body.token,
    })
    expect(old.status).toBe(404)
  })

  it('refuses self-verification on sign-up', async () => {
    const res = await t.api('POST', '/api/collections/members/records', {
      body: {
        email: 'new@example.com',
        password: 'password123',
        passwordConfirm: 'password123',
        verified: true,
      },
    })
    expect(res.status).toBe(400)
    expect(res.body.data.verified.code).toBe('validation_values_mismatch')
  })
})

describe('fields', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
    await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'docs',
        listRule: '',
        viewRule: '',
        createRule: '',
        schema: [
          { name: 'title', type: 'text' },
          { name: 'body', type: 'editor' },
        ],
      },
    })
    await t.api('POST', '/api/collections/docs/records', {
      body: { title: 'T', body: '<p>Hello <b>big</b> world of things</p>' },
    })
  })
  afterAll(() => t.close())

  it('picks fields of list items and applies excerpt', async () => {
    const res = await t.api(
      'GET',
      `/api/collections/docs/records?fields=${encodeURIComponent('id,body:excerpt(9,true)')}`,
    )
    expect(res.status).toBe(200)
    expect(Object.keys(res.body.items[0]).sort()).toEqual(['body', 'id'])
    expect(res.body.items[0].body).toBe('Hello big...')
    expect(res.body.totalItems).toBe(1)
    const bad = await t.api('GET', '/api/collections/docs/records?fields=body:nope(1)')
    expect(bad.status).toBe(400)
    const err = await t.api('GET', '/api/collections/docs/records/missing?fields=id')
    expect(err.body).toEqual({
      code: 404,
      status: 404,
      message: "The requested resource wasn't found.",
      data: {},
    })
  })
})
