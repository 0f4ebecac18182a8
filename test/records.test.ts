import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

const DATE_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('records API', () => {
  let t: TestServer
  let su: string
  let tagsId: string

  beforeAll(async () => {
    t = await startServer()
    su = t.suToken
    const tags = await t.api('POST', '/api/collections', {
      token: su,
      body: {
        name: 'tags',
        type: 'base',
        listRule: '',
        viewRule: '',
        schema: [{ name: 'label', type: 'text' }],
      },
    })
    expect(tags.status).toBe(200)
    tagsId = tags.body.id
    const res = await t.api('POST', '/api/collections', {
      token: su,
      body: {
        name: 'items',
        type: 'base',
        listRule: '',
        viewRule: '',
        createRule: '',
        updateRule: '',
        deleteRule: '',
        schema: [
          { name: 'title', type: 'text', required: true, options: { min: 2, max: 50 } },
          { name: 'count', type: 'number', options: { min: 0, max: 1000, onlyInt: true } },
          { name: 'flag', type: 'bool' },
          { name: 'contact', type: 'email' },
          { name: 'site', type: 'url' },
          { name: 'body', type: 'editor' },
          { name: 'due', type: 'date' },
          {
            name: 'status',
            type: 'select',
            options: { values: ['draft', 'live', 'gone'], maxSelect: 1 },
          },
          { name: 'labels', type: 'select', options: { values: ['a', 'b', 'c'], maxSelect: 3 } },
          { name: 'meta', type: 'json' },
          { name: 'tag', type: 'relation', options: { collectionId: tagsId, maxSelect: 1 } },
          { name: 'tagList', type: 'relation', options: { collectionId: tagsId, maxSelect: 5 } },
          { name: 'secret', type: 'text', hidden: true },
          { name: 'where', type: 'geoPoint' },
          { name: 'embedding', type: 'vector', options: { dimensions: 3 } },
          { name: 'attachment', type: 'file', options: { maxSelect: 1 } },
        ],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  })
  afterAll(() => t.close())

  it('creates a record with every field type and reads it back', async () => {
    const tag = await t.api('POST', '/api/collections/tags/records', {
      token: su,
      body: { label: 'one' },
    })
    expect(tag.status).toBe(200)
    const res = await t.api('POST', '/api/collections/items/records', {
      body: {
        title: 'Hello',
        count: 7,
        flag: true,
        contact: 'a@b.co',
        site: 'https://example.com/x',
        body: '<p>hi</p>',
        due: '2024-05-01',
        status: 'live',
        labels: ['a', 'c'],
        meta: { nested: [1, 2] },
        tag: tag.body.id,
        tagList: [tag.body.id],
        secret: 'dropped for guests',
        where: { lon: 23.3, lat: 42.7 },
        embedding: [0.1, 0.2, 0.3],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const r = res.body
    expect(r.id).toMatch(/^[a-z0-9]{15}$/)
    expect(r.created).toMatch(DATE_RE)
    expect(r.updated).toMatch(DATE_RE)
    expect(r).toMatchObject({
      collectionName: 'items',
      title: 'Hello',
      count: 7,
      flag: true,
      contact: 'a@b.co',
      due: '2024-05-01 00:00:00.000Z',
      status: 'live',
      labels: ['a', 'c'],
      meta: { nested: [1, 2] },
      tag: tag.body.id,
      tagList: [tag.body.id],
      where: { lon: 23.3, lat: 42.7 },
      // vectors are stored as float32, so they come back rounded to it
      embedding: [0.1, 0.2, 0.3].map(Math.fround),
      attachment: '',
    })
    expect(r.secret).toBeUndefined()
    const asSu = await t.api('GET', `/api/collections/items/records/${r.id}`, { token: su })
    expect(asSu.body.secret).toBe('')
    const view = await t.api('GET', `/api/collections/items/records/${r.id}`)
    expect(view.status).toBe(200)
    expect(view.body).toEqual(r)
  })

  it('checks every relation field of a record, each against its own ids', async () => {
    const tag = await t.api('POST', '/api/collections/tags/records', {
      token: su,
      body: { label: 'real' },
    })
    expect(tag.status).toBe(200)
    const post = (body: Record<string, unknown>) =>
      t.api('POST', '/api/collections/items/records', { body: { title: 'rel', ...body } })
    // Both fields target `tags`: their ids are looked up together, errors stay per field.
    const bad = await post({ tag: tag.body.id, tagList: [tag.body.id, 'missingid000000'] })
    expect(bad.status).toBe(400)
    expect(Object.keys(bad.body.data)).toEqual(['tagList'])
    expect(bad.body.data.tagList.code).toBe('validation_missing_rel_records')
    const bad2 = await post({ tag: 'missingid000001', tagList: [tag.body.id] })
    expect(Object.keys(bad2.body.data)).toEqual(['tag'])
    const ok = await post({ tag: tag.body.id, tagList: [tag.body.id] })
    expect(ok.status).toBe(200)
    expect(ok.body.tagList).toEqual([tag.body.id])
  })

  it('validates with PocketBase error codes in the error envelope', async () => {
    const res = await t.api('POST', '/api/collections/items/records', {
      body: {
        title: 'x',
        count: 1.5,
        contact: 'not-an-email',
        site: 'nope',
        status: 'unknown',
        labels: ['a', 'z'],
        tag: 'missingid000000',
        where: { lon: 500, lat: 0 },
        embedding: [1, 2],
      },
    })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe(400)
    expect(res.body.message).toBe('Failed to create record.')
    const codes = Object.fromEntries(
      Object.entries(res.body.data).map(([k, v]: [string, any]) => [k, v.code]),
    )
    expect(codes).toEqual({
      title: 'validation_min_text_constraint',
      count: 'validation_only_int_constraint',
      contact: 'validation_is_email',
      site: 'validation_invalid_url',
      status: 'validation_invalid_value',
      labels: 'validation_invalid_value',
      tag: 'validation_missing_rel_records',
      where: 'validation_invalid_longitude',
      embedding: 'validation_vector_dimensions',
    })
    const missing = await t.api('POST', '/api/collections/items/records', { body: {} })
    expect(missing.body.data.title.code).toBe('validation_required')
  })

  it('accepts a custom id and refuses a duplicate or malformed one', async () => {
    const ok = await t.api('POST', '/api/collections/items/records', {
      body: { id: 'customid0000001', title: 'custom' },
    })
    expect(ok.status).toBe(200)
    expect(ok.body.id).toBe('customid0000001')
    const dup = await t.api('POST', '/api/collections/items/records', {
      body: { id: 'customid0000001', title: 'again' },
    })
    expect(dup.status).toBe(400)
    expect(dup.body.data.id.code).toBe('validation_not_unique')
    const bad = await t.api('POST', '/api/collections/items/records', {
      body: { id: 'UPPER', title: 'bad' },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.data.id).toBeDefined()
  })

  it('applies + and - modifiers on numbers, selects and relations', async () => {
    const t1 = await t.api('POST', '/api/collections/tags/records', {
      token: su,
      body: { label: 'm1' },
    })
    const t2 = await t.api('POST', '/api/collections/tags/records', {
      token: su,
      body: { label: 'm2' },
    })
    const created = await t.api('POST', '/api/collections/items/records', {
      body: { title: 'mods', count: 10, labels: ['a'], tagList: [t1.body.id] },
    })
    const id = created.body.id
    const res = await t.api('PATCH', `/api/collections/items/records/${id}`, {
      body: { 'count+': 5, 'labels+': 'b', '+labels': 'c', 'tagList+': t2.body.id },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.count).toBe(15)
    expect(res.body.labels).toEqual(['c', 'a', 'b'])
    expect(res.body.tagList).toEqual([t1.body.id, t2.body.id])
    const res2 = await t.api('PATCH', `/api/collections/items/records/${id}`, {
      body: { 'count-': 3, 'labels-': ['a', 'c'], 'tagList-': t1.body.id },
    })
    expect(res2.body.count).toBe(12)
    expect(res2.body.labels).toEqual(['b'])
    expect(res2.body.tagList).toEqual([t2.body.id])
    expect(res2.body.updated >= created.body.updated).toBe(true)
    expect(res2.body.created).toBe(created.body.created)
  })

  it('accepts multipart bodies with value inference and @jsonPayload', async () => {
    const form = new FormData()
    form.append('title', 'multipart')
    form.append('count', '42')
    form.append('flag', 'true')
    form.append('labels', 'a')
    form.append('labels', 'b')
    form.append('@jsonPayload', JSON.stringify({ meta: { from: 'payload' }, status: 'draft' }))
    const res = await t.api('POST', '/api/collections/items/records', { raw: form })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toMatchObject({
      title: 'multipart',
      count: 42,
      flag: true,
      labels: ['a', 'b'],
      meta: { from: 'payload' },
      status: 'draft',
    })
  })

  it('lists with paging, sort, skipTotal and filter', async () => {
    await t.api('POST', '/api/collections', {
      token: su,
      body: {
        name: 'nums',
        type: 'base',
        listRule: '',
        viewRule: '',
        createRule: '',
        schema: [
          { name: 'n', type: 'number' },
          { name: 'word', type: 'text' },
        ],
      },
    })
    for (let i = 1; i <= 45; i++) {
      const r = await t.api('POST', '/api/collections/nums/records', {
        body: { n: i, word: i % 2 ? 'odd' : 'even' },
      })
      expect(r.status).toBe(200)
    }
    const def = await t.api('GET', '/api/collections/nums/records')
    expect(def.body).toMatchObject({ page: 1, perPage: 30, totalItems: 45, totalPages: 2 })
    expect(def.body.items).toHaveLength(30)
    expect(def.body.items[0].n).toBe(45) // default sort -created
    const p2 = await t.api('GET', '/api/collections/nums/records?page=2&perPage=20&sort=n')
    expect(p2.body.items.map((r: any) => r.n)).toEqual([
      21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    ])
    const zero = await t.api('GET', '/api/collections/nums/records?page=0&perPage=1000')
    expect(zero.body.page).toBe(1)
    expect(zero.body.perPage).toBe(500)
    const skip = await t.api('GET', '/api/collections/nums/records?skipTotal=1&perPage=5')
    expect(skip.body).toMatchObject({ totalItems: -1, totalPages: -1 })
    expect(skip.body.items).toHaveLength(5)
    const f = await t.api(
      'GET',
      `/api/collections/nums/records?perPage=100&sort=-n&filter=${encodeURIComponent("(n >= 10 && n < 20 && word = 'even') || n = 44")}`,
    )
    expect(f.status, JSON.stringify(f.body)).toBe(200)
    expect(f.body.items.map((r: any) => r.n)).toEqual([44, 18, 16, 14, 12, 10])
    const like = await t.api(
      'GET',
      `/api/collections/nums/records?filter=${encodeURIComponent("word ~ 'OD' && n <= 5")}&sort=n`,
    )
    expect(like.body.items.map((r: any) => r.n)).toEqual([1, 3, 5])
    const notLike = await t.api(
      'GET',
      `/api/collections/nums/records?filter=${encodeURIComponent("word !~ 'od' && n != 2 && n > 40")}&sort=n`,
    )
    expect(notLike.body.items.map((r: any) => r.n)).toEqual([42, 44])
    const bad = await t.api(
      'GET',
      `/api/collections/nums/records?filter=${encodeURIComponent('nope = 1')}`,
    )
    expect(bad.status).toBe(400)
    const badPage = await t.api('GET', '/api/collections/nums/records?page=abc')
    expect(badPage.status).toBe(400)
  })

  it('updates and deletes, 404 for unknown ids and collections', async () => {
    const r = await t.api('POST', '/api/collections/items/records', {
      body: { title: 'to delete' },
    })
    const upd = await t.api('PATCH', `/api/collections/items/records/${r.body.id}`, {
      body: { title: 'changed' },
    })
    expect(upd.body.title).toBe('changed')
    const del = await t.api('DELETE', `/api/collections/items/records/${r.body.id}`)
    expect(del.status).toBe(204)
    expect((await t.api('GET', `/api/collections/items/records/${r.body.id}`)).status).toBe(404)
    expect(
      (
        await t.api('PATCH', `/api/collections/items/records/${r.body.id}`, {
          body: { title: 'x' },
        })
      ).status,
    ).toBe(404)
    expect((await t.api('DELETE', `/api/collections/items/records/${r.body.id}`)).status).toBe(404)
    const unknown = await t.api('GET', '/api/collections/nope/records')
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toBe('Missing collection context.')
    // An id with a NUL names no record: 404 on either engine (PostgreSQL cannot compare it).
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const nul = await t.api(method, '/api/collections/items/records/abc%00', {
        token: t.suToken,
        ...(method === 'PATCH' ? { body: { title: 'x' } } : {}),
      })
      expect([method, nul.status, nul.body.message]).toEqual([
        method,
        404,
        "The requested resource wasn't found.",
      ])
    }
  })

  it('removes a deleted record from relations that point at it', async () => {
    const tag = await t.api('POST', '/api/collections/tags/records', {
      token: su,
      body: { label: 'gone' },
    })
    const keep = await t.api('POST', '/api/collections/tags/records', {
      token: su,
      body: { label: 'kept' },
    })
    const item = await t.api('POST', '/api/collections/items/records', {
      body: { title: 'refs', tag: tag.body.id, tagList: [tag.body.id, keep.body.id] },
    })
    expect(
      (await t.api('DELETE', `/api/collections/tags/records/${tag.body.id}`, { token: su })).status,
    ).toBe(204)
    const after = await t.api('GET', `/api/collections/items/records/${item.body.id}`)
    expect(after.body.tag).toBe('')
    expect(after.body.tagList).toEqual([keep.body.id])
  })
})

describe('rules null and empty', () => {
  let t: TestServer
  let userToken: string
  let recId: string

  beforeAll(async () => {
    t = await startServer()
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'locked', type: 'base', schema: [{ name: 'v', type: 'text' }] },
    })
    expect(res.status).toBe(200)
    await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'owned',
        type: 'base',
        listRule: "v = 'mine'",
        viewRule: "v = 'mine'",
        createRule: "v = 'mine'",
        updateRule: "v = 'mine'",
        deleteRule: "v = 'mine'",
        schema: [{ name: 'v', type: 'text' }],
      },
    })
    recId = (
      await t.api('POST', '/api/collections/locked/records', { token: t.suToken, body: { v: 'x' } })
    ).body.id
    await t.api('POST', '/api/collections/users/records', {
      body: { email: 'r@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    userToken = (
      await t.api('POST', '/api/collections/users/auth-with-password', {
        body: { identity: 'r@example.com', password: 'password123' },
      })
    ).body.token
  })
  afterAll(() => t.close())

  it('null rules answer non-superusers 403 on every action and let superusers through', async () => {
    for (const token of [null, userToken]) {
      for (const [method, path, body] of [
        ['GET', '/api/collections/locked/records', undefined],
        ['GET', `/api/collections/locked/records/${recId}`, undefined],
        ['POST', '/api/collections/locked/records', { v: 'y' }],
        ['PATCH', `/api/collections/locked/records/${recId}`, { v: 'z' }],
        ['DELETE', `/api/collections/locked/records/${recId}`, undefined],
      ] as const) {
        const res = await t.api(method, path, { token, body })
        expect(res.status, `${method} ${path}`).toBe(403)
        expect(res.body.message).toBe('Only superusers can perform this action.')
      }
    }
    expect(
      (await t.api('GET', '/api/collections/locked/records', { token: t.suToken })).body.totalItems,
    ).toBe(1)
  })

  it('failing expression rules: empty list, 400 on create, 404 on view/update/delete', async () => {
    const mine = await t.api('POST', '/api/collections/owned/records', { body: { v: 'mine' } })
    expect(mine.status).toBe(200)
    const denied = await t.api('POST', '/api/collections/owned/records', { body: { v: 'theirs' } })
    expect(denied.status).toBe(400)
    expect(denied.body.message).toBe('Failed to create record.')
    const other = await t.api('POST', '/api/collections/owned/records', {
      token: t.suToken,
      body: { v: 'theirs' },
    })
    expect(other.status).toBe(200)
    const list = await t.api('GET', '/api/collections/owned/records')
    expect(list.body.totalItems).toBe(1)
    expect(list.body.items[0].id).toBe(mine.body.id)
    const none = await t.api(
      'GET',
      `/api/collections/owned/records?filter=${encodeURIComponent("v = 'theirs'")}`,
    )
    expect(none.body).toMatchObject({ items: [], totalItems: 0 })
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { v: 'mine' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.api(method, `/api/collections/owned/records/${other.body.id}`, { body })
      expect(res.status, method).toBe(404)
    }
    const all = await t.api('GET', '/api/collections/owned/records', { token: t.suToken })
    expect(all.body.totalItems).toBe(2)
  })
})
