/**
 * `POST /api/schema/apply` (SPEC §4.8) through a real server: every rule of the plan and of the
 * writes, the three body shapes, bad bodies and access.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../src/core/logger.js'
import { createServer } from '../src/server.js'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'

let t: TestServer
let userToken: string

const apply = (body: unknown, query = '', token: string | null = t.suToken) =>
  t.api('POST', `/api/schema/apply${query}`, { token, body })
const collection = async (name: string) => {
  const res = await t.api('GET', `/api/collections/${name}`, { token: t.suToken })
  return res.status === 200 ? res.body : null
}
const fieldNames = async (name: string) =>
  ((await collection(name))?.schema as { name: string }[]).map((f) => f.name)
const create = async (name: string, body: Record<string, unknown>) =>
  t.api('POST', `/api/collections/${name}/records`, { token: t.suToken, body })
const record = async (name: string, id: string) =>
  (await t.api('GET', `/api/collections/${name}/records/${id}`, { token: t.suToken })).body

/** A plan entry with nothing in it but its name and action. */
const entry = (name: string, action: string, more: Record<string, unknown> = {}) => ({
  name,
  action,
  fieldsAdded: [],
  fieldsRemoved: [],
  fieldsChanged: [],
  pendingRemoval: false,
  ...more,
})

const text = (name: string, options: Record<string, unknown> = {}) => ({
  name,
  type: 'text',
  options,
})

beforeAll(async () => {
  t = await startServer()
  await t.api('POST', '/api/collections/users/records', {
    body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
  })
  const login = await t.api('POST', '/api/collections/users/auth-with-password', {
    body: { identity: 'u@example.com', password: 'password123' },
  })
  userToken = login.body.token as string
})
afterAll(() => t.close())

describe('POST /api/schema/apply: access and bodies', () => {
  it('is for superusers only: 401 for guests, 403 for other records', async () => {
    const body = [{ name: 'access_probe', type: 'base', schema: [] }]
    const guest = await apply(body, '', null)
    expect(guest.status).toBe(401)
    const user = await apply(body, '', userToken)
    expect(user.status).toBe(403)
    expect(await collection('access_probe')).toBeNull()
  })

  it('answers a precise 400 for every body of the wrong shape, and writes nothing', async () => {
    const cases: [unknown, string][] = [
      [
        { name: 'x' },
        'The schema payload must be an array of collections, {"collections": [...]} or {"items": [...]}.',
      ],
      [
        'posts',
        'The schema payload must be an array of collections, {"collections": [...]} or {"items": [...]}.',
      ],
      [
        { collections: { name: 'x' } },
        `The schema payload's "collections" must be an array of collections.`,
      ],
      [{ items: 'x' }, `The schema payload's "items" must be an array of collections.`],
      [
        { collections: [{ name: 'bad_a' }], items: [{ name: 'bad_b' }] },
        'The schema payload has both "collections" and "items": send one of them.',
      ],
      [[], 'The schema payload lists no collections.'],
      [{ collections: [] }, 'The schema payload lists no collections.'],
      [
        [{ name: 'bad_c', type: 'base' }, 7],
        'Item 1 of the schema payload is not a collection object.',
      ],
      [
        Array.from({ length: 1001 }, (_, i) => ({ name: `c${i}` })),
        'The schema payload lists more than 1000 collections.',
      ],
    ]
    for (const [body, message] of cases) {
      const res = await apply(body)
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(res.body).toEqual({ code: 400, status: 400, message, data: {} })
    }
    // No body at all, and a form body, are the wrong shape too.
    const empty = await t.api('POST', '/api/schema/apply', { token: t.suToken })
    expect(empty.status).toBe(400)
    const form = new FormData()
    form.append('collections', '[]')
    const multipart = await t.api('POST', '/api/schema/apply', { token: t.suToken, raw: form })
    expect(multipart.status).toBe(400)
    const invalidJson = await t.api('POST', '/api/schema/apply', {
      token: t.suToken,
      raw: '[{',
      headers: { 'content-type': 'application/json' },
    })
    expect(invalidJson.status).toBe(400)
    for (const name of ['bad_a', 'bad_b', 'bad_c', 'c0']) expect(await collection(name)).toBeNull()
  })

  it('takes dryRun and force as 1 or true (0, false or empty: off); anything else is a 400', async () => {
    const body = [{ name: 'flags_probe', type: 'base', schema: [text('a')] }]
    for (const q of ['?dryRun=maybe', '?force=yes', '?dryRun=2', '?force=on']) {
      const res = await apply(body, q)
      expect(res.status, q).toBe(400)
      expect(res.body.message).toMatch(
        /^Invalid (dryRun|force)=\w+: expected 1, true, 0 or false\.$/,
      )
    }
    for (const q of ['?dryRun=1', '?dryRun=true', '?dryRun=TRUE&force=0']) {
      const res = await apply(body, q)
      expect(res.status, q).toBe(200)
      expect(res.body.applied).toBe(false)
    }
    const forced = await apply(body, '?dryRun=1&force=true')
    expect(forced.body).toMatchObject({ applied: false, force: true })
    expect(await collection('flags_probe')).toBeNull()
    const off = await apply(body, '?dryRun=false&force=')
    expect(off.body).toMatchObject({ applied: true, force: false })
    expect(await collection('flags_probe')).not.toBeNull()
  })

  it('reads the three body shapes alike: a bare array, {collections} and {items}', async () => {
    const item = { name: 'shapes', type: 'base', schema: [text('title')] }
    const first = await apply({ items: [item] })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      applied: true,
      force: false,
      collections: [entry('shapes', 'create', { fieldsAdded: ['title'] })],
    })
    const withSummary = { ...item, schema: [text('title'), text('summary')] }
    const second = await apply({ collections: [withSummary] })
    expect(second.body.collections).toEqual([
      entry('shapes', 'update', { fieldsAdded: ['summary'] }),
    ])
    const third = await apply([withSummary])
    expect(third.body.collections).toEqual([entry('shapes', 'unchanged')])
    expect(await fieldNames('shapes')).toEqual(['id', 'title', 'summary', 'created', 'updated'])
  })
})

describe('POST /api/schema/apply: the rules of SPEC §4.8', () => {
  it('creates a collection that does not exist yet, with its rules and indexes', async () => {
    const res = await apply([
      {
        name: 'articles',
        type: 'base',
        listRule: '',
        viewRule: '',
        indexes: ['CREATE INDEX idx_articles_title ON articles (title)'],
        schema: [text('title', { max: 120 }), { name: 'views', type: 'number', required: false }],
      },
    ])
    expect(res.status).toBe(200)
    expect(res.body.collections).toEqual([
      entry('articles', 'create', { fieldsAdded: ['title', 'views'] }),
    ])
    const c = await collection('articles')
    expect(c.listRule).toBe('')
    expect(c.indexes).toHaveLength(1)
    expect(await fieldNames('articles')).toEqual(['id', 'title', 'views', 'created', 'updated'])
    // Records work at once; the public list rule applies.
    expect((await create('articles', { title: 'a', views: 2 })).status).toBe(200)
    expect((await t.api('GET', '/api/collections/articles/records')).body.totalItems).toBe(1)
  })

  it('writes added and changed fields; data in kept fields survives', async () => {
    await apply([{ name: 'notes', type: 'base', schema: [text('title'), text('body')] }])
    const rec = (await create('notes', { title: 'hello', body: 'world' })).body
    const res = await apply([
      {
        name: 'notes',
        type: 'base',
        schema: [
          { name: 'title', type: 'text', required: true, options: { max: 50 } },
          text('body'),
          { name: 'tags', type: 'json' },
        ],
      },
    ])
    expect(res.body.collections).toEqual([
      entry('notes', 'update', { fieldsAdded: ['tags'], fieldsChanged: ['title'] }),
    ])
    const title = ((await collection('notes')).schema as any[]).find((f) => f.name === 'title')
    expect(title).toMatchObject({ required: true, options: { max: 50 } })
    expect(await record('notes', rec.id)).toMatchObject({
      title: 'hello',
      body: 'world',
      tags: null,
    })
    // The new rule is enforced: an empty title is refused now.
    expect((await create('notes', { body: 'x' })).status).toBe(400)
  })

  it('treats a field sent with a known id and a new name as a rename (a change), keeping its data', async () => {
    await apply([{ name: 'renames', type: 'base', schema: [text('title')] }])
    const rec = (await create('renames', { title: 'kept' })).body
    const stored = ((await collection('renames')).schema as any[]).find((f) => f.name === 'title')
    const res = await apply([
      {
        name: 'renames',
        type: 'base',
        schema: [{ id: stored.id, name: 'headline', type: 'text' }],
      },
    ])
    expect(res.body.collections).toEqual([
      entry('renames', 'update', { fieldsChanged: ['headline'] }),
    ])
    expect(await fieldNames('renames')).toEqual(['id', 'headline', 'created', 'updated'])
    expect((await record('renames', rec.id)).headline).toBe('kept')
  })

  it('keeps an omitted field without force (pendingRemoval), and drops it with force=1', async () => {
    await apply([
      { name: 'drafts', type: 'base', schema: [text('title'), text('legacy'), text('body')] },
    ])
    const rec = (await create('drafts', { title: 't', legacy: 'old data' })).body
    const payload = [{ name: 'drafts', type: 'base', schema: [text('title'), text('body')] }]

    const kept = await apply(payload)
    expect(kept.body).toEqual({
      applied: true,
      force: false,
      collections: [entry('drafts', 'update', { fieldsRemoved: ['legacy'], pendingRemoval: true })],
    })
    expect(await fieldNames('drafts')).toEqual([
      'id',
      'title',
      'legacy',
      'body',
      'created',
      'updated',
    ])
    expect((await record('drafts', rec.id)).legacy).toBe('old data')
    // Kept in its place while another change is saved.
    const grown = await apply([
      { name: 'drafts', type: 'base', schema: [text('title'), text('body'), text('extra')] },
    ])
    expect(grown.body.collections).toEqual([
      entry('drafts', 'update', {
        fieldsAdded: ['extra'],
        fieldsRemoved: ['legacy'],
        pendingRemoval: true,
      }),
    ])
    expect(await fieldNames('drafts')).toEqual([
      'id',
      'title',
      'legacy',
      'body',
      'extra',
      'created',
      'updated',
    ])
    payload[0]!.schema.push(text('extra'))

    // A dry run with force shows the drop and does not do it.
    const dry = await apply(payload, '?dryRun=1&force=1')
    expect(dry.body).toEqual({
      applied: false,
      force: true,
      collections: [entry('drafts', 'update', { fieldsRemoved: ['legacy'] })],
    })
    expect(await fieldNames('drafts')).toContain('legacy')

    const dropped = await apply(payload, '?force=1')
    expect(dropped.body).toEqual({
      applied: true,
      force: true,
      collections: [entry('drafts', 'update', { fieldsRemoved: ['legacy'] })],
    })
    expect(await fieldNames('drafts')).toEqual([
      'id',
      'title',
      'body',
      'extra',
      'created',
      'updated',
    ])
    const after = await record('drafts', rec.id)
    expect(after.title).toBe('t')
    expect(after).not.toHaveProperty('legacy')
    expect((await apply(payload)).body.collections).toEqual([entry('drafts', 'unchanged')])
  })

  it('never removes system fields, even with force', async () => {
    const res = await apply([{ name: 'members', type: 'auth', schema: [text('nickname')] }], '')
    expect(res.body.collections).toEqual([
      entry('members', 'create', { fieldsAdded: ['nickname'] }),
    ])
    const forced = await apply([{ name: 'members', type: 'auth', schema: [] }], '?force=1')
    expect(forced.body.collections).toEqual([
      entry('members', 'update', { fieldsRemoved: ['nickname'] }),
    ])
    expect(await fieldNames('members')).toEqual([
      'id',
      'password',
      'tokenKey',
      'email',
      'emailVisibility',
      'verified',
      'created',
      'updated',
    ])
  })

  it('never drops a collection absent from the payload, and does not list it', async () => {
    await apply([{ name: 'keepme', type: 'base', schema: [text('a')] }])
    await create('keepme', { a: 'still here' })
    const res = await apply([{ name: 'other_one', type: 'base', schema: [] }], '?force=1')
    expect(res.body.collections.map((e: { name: string }) => e.name)).toEqual(['other_one'])
    expect(await fieldNames('keepme')).toEqual(['id', 'a', 'created', 'updated'])
    const list = await t.api('GET', '/api/collections/keepme/records', { token: t.suToken })
    expect(list.body.items[0].a).toBe('still here')
  })

  it('dryRun writes nothing and still returns the plan', async () => {
    await apply([{ name: 'dry', type: 'base', schema: [text('a'), text('b')] }])
    const before = await collection('dry')
    const res = await apply(
      [
        { name: 'dry', type: 'base', listRule: '', schema: [text('a', { max: 3 }), text('c')] },
        { name: 'dry_new', type: 'base', schema: [text('x')] },
      ],
      '?dryRun=1',
    )
    expect(res.body).toEqual({
      applied: false,
      force: false,
      collections: [
        entry('dry', 'update', {
          fieldsAdded: ['c'],
          fieldsChanged: ['a'],
          fieldsRemoved: ['b'],
          pendingRemoval: true,
        }),
        entry('dry_new', 'create', { fieldsAdded: ['x'] }),
      ],
    })
    expect(await collection('dry')).toEqual(before)
    expect(await collection('dry_new')).toBeNull()
  })

  it('reports rules, indexes and options as an update with no field change', async () => {
    const base = { name: 'ruled', type: 'base', schema: [text('title')] }
    await apply([base])
    const updated = (await collection('ruled')).updated
    const rules = await apply([{ ...base, listRule: 'title != ""' }])
    expect(rules.body.collections).toEqual([entry('ruled', 'update')])
    expect((await collection('ruled')).listRule).toBe('title != ""')
    const idx = await apply([
      {
        ...base,
        listRule: 'title != ""',
        indexes: ['CREATE UNIQUE INDEX idx_ruled ON ruled (title)'],
      },
    ])
    expect(idx.body.collections).toEqual([entry('ruled', 'update')])
    expect((await collection('ruled')).indexes).toHaveLength(1)
    expect((await collection('ruled')).updated >= updated).toBe(true)
    // An auth collection's options are compared too.
    await apply([{ name: 'staff', type: 'auth', schema: [] }])
    const otp = await apply([
      { name: 'staff', type: 'auth', authOptions: { otp: { enabled: true } } },
    ])
    expect(otp.body.collections).toEqual([entry('staff', 'update')])
    expect((await collection('staff')).authOptions.otp.enabled).toBe(true)
    // The order of the fields is compared too.
    await apply([{ name: 'ordered', type: 'base', schema: [text('a'), text('b')] }])
    const swapped = await apply([{ name: 'ordered', type: 'base', schema: [text('b'), text('a')] }])
    expect(swapped.body.collections).toEqual([entry('ordered', 'update')])
    expect(await fieldNames('ordered')).toEqual(['id', 'b', 'a', 'created', 'updated'])
    expect(
      (await apply([{ name: 'ordered', type: 'base', schema: [text('b'), text('a')] }])).body
        .collections,
    ).toEqual([entry('ordered', 'unchanged')])
    // A collection-level rule may be sent alone: the fields stay as they are.
    expect((await apply([{ name: 'ruled', listRule: 'title != ""' }])).body.collections).toEqual([
      entry('ruled', 'unchanged'),
    ])
  })

  it('answers unchanged for an identical item, firing no hook and keeping updated', async () => {
    const item = { name: 'stable', type: 'base', viewRule: '', schema: [text('a')] }
    await apply([item])
    const before = await collection('stable')
    let fired = 0
    const id = t.server.app.hooks.onCollectionUpdate.bind(async (e) => {
      fired++
      await e.next()
    })
    try {
      const res = await apply([item])
      expect(res.body.collections).toEqual([entry('stable', 'unchanged')])
      expect(fired).toBe(0)
      expect((await collection('stable')).updated).toBe(before.updated)
      // A real change fires the hook once for that collection only.
      await apply([item, { ...item, schema: [text('a'), text('b')] }].slice(1))
      expect(fired).toBe(1)
    } finally {
      t.server.app.hooks.onCollectionUpdate.unbind(id)
    }
  })

  it('refuses the whole payload when one item is invalid: 400 naming it, nothing written', async () => {
    await apply([{ name: 'valid_one', type: 'base', schema: [text('a')] }])
    const res = await apply([
      { name: 'valid_one', type: 'base', schema: [text('a'), text('added')] },
      { name: 'brand_new', type: 'base', schema: [text('x')] },
      { name: 'broken', type: 'base', schema: [text('ok'), { name: 'bad', type: 'nope' }] },
    ])
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Failed to apply the schema of collection "broken".')
    expect(res.body.data).toEqual({
      broken: {
        schema: { '1': { type: { code: 'validation_in_invalid', message: expect.any(String) } } },
      },
    })
    expect(await fieldNames('valid_one')).toEqual(['id', 'a', 'created', 'updated'])
    expect(await collection('brand_new')).toBeNull()
    expect(await collection('broken')).toBeNull()
    // Errors found only once the whole set is saved roll back too: a rule naming no field.
    const late = await apply([
      { name: 'valid_one', type: 'base', schema: [text('a'), text('added')] },
      { name: 'late_bad', type: 'base', listRule: 'nosuchfield = 1', schema: [] },
    ])
    expect(late.status).toBe(400)
    expect(late.body.message).toBe('Failed to apply the schema of collection "late_bad".')
    expect(late.body.data.late_bad.listRule.code).toBe('validation_invalid_rule')
    expect(await fieldNames('valid_one')).toEqual(['id', 'a', 'created', 'updated'])
    // A dry run validates too.
    const dry = await apply(
      [{ name: 'late_bad', type: 'base', listRule: 'nosuchfield = 1' }],
      '?dryRun=1',
    )
    expect(dry.status).toBe(400)
    expect(dry.body.data.late_bad.listRule.code).toBe('validation_invalid_rule')
    // A type change of a stored collection is refused.
    const type = await apply([{ name: 'valid_one', type: 'auth' }])
    expect(type.status).toBe(400)
    expect(type.body.data.valid_one.type.code).toBe('validation_collection_type_change')
  })

  it('renames a collection matched by its id, keeping its records', async () => {
    await apply([{ name: 'old_name', type: 'base', schema: [text('a')] }])
    const stored = await collection('old_name')
    const rec = (await create('old_name', { a: 'kept' })).body
    const res = await apply([
      { id: stored.id, name: 'new_name', type: 'base', schema: [text('a')] },
    ])
    expect(res.body.collections).toEqual([entry('new_name', 'update')])
    expect(await collection('old_name')).toBeNull()
    expect((await record('new_name', rec.id)).a).toBe('kept')
  })

  it('replaces a field by one of another type only with force (sent without the old id)', async () => {
    await apply([{ name: 'retyped', type: 'base', schema: [text('size')] }])
    const payload = [{ name: 'retyped', type: 'base', schema: [{ name: 'size', type: 'number' }] }]
    const kept = await apply(payload)
    expect(kept.status).toBe(400)
    // Kept, the old field would share its name with the new one.
    expect(JSON.stringify(kept.body.data.retyped.schema)).toContain(
      'validation_duplicated_field_name',
    )
    const forced = await apply(payload, '?force=1')
    expect(forced.body.collections).toEqual([
      entry('retyped', 'update', { fieldsAdded: ['size'], fieldsRemoved: ['size'] }),
    ])
    const size = ((await collection('retyped')).schema as any[]).find((f) => f.name === 'size')
    expect(size.type).toBe('number')
    // With the stored id, a type change is refused.
    const byId = await apply([
      { name: 'retyped', type: 'base', schema: [{ ...size, type: 'text' }] },
    ])
    expect(byId.status).toBe(400)
    // PocketBase reports it for the whole field.
    expect(byId.body.data.retyped.schema['1'].code).toBe('validation_field_type_change')
  })

  it('runs collection hooks and publishes events once per saved collection, after commit', async () => {
    await apply([
      { name: 'ev_a', type: 'base', schema: [text('x')] },
      { name: 'ev_b', type: 'base', schema: [text('x')] },
    ])
    const events: string[] = []
    const hooks: string[] = []
    const stop = t.server.app.events.subscribe((e) => {
      if (e.kind === 'collection') events.push(`${e.action} ${e.collection.name}`)
    })
    const hooksApi = t.server.app.hooks
    const ids = [
      hooksApi.onCollectionCreate.bind(async (e) => {
        hooks.push(`create ${e.collection.name}`)
        await e.next()
      }),
      hooksApi.onCollectionUpdate.bind(async (e) => {
        hooks.push(`update ${e.collection.name}`)
        await e.next()
      }),
      hooksApi.onCollectionAfterUpdateSuccess.bind(async (e) => {
        hooks.push(`after update ${e.collection.name}`)
        await e.next()
      }),
    ]
    try {
      const res = await apply([
        { name: 'ev_a', type: 'base', schema: [text('x'), text('y')] },
        { name: 'ev_b', type: 'base', schema: [text('x')] },
        { name: 'ev_c', type: 'base', schema: [] },
      ])
      expect(res.body.collections.map((e: { action: string }) => e.action)).toEqual([
        'update',
        'unchanged',
        'create',
      ])
      await new Promise((r) => setTimeout(r, 50))
      expect(hooks.sort()).toEqual(['after update ev_a', 'create ev_c', 'update ev_a'])
      expect(events.sort()).toEqual(['create ev_c', 'update ev_a'])
      // A dry run fires nothing.
      hooks.length = 0
      events.length = 0
      await apply([{ name: 'ev_b', type: 'base', schema: [text('z')] }], '?dryRun=1')
      await new Promise((r) => setTimeout(r, 50))
      expect([...hooks, ...events]).toEqual([])
    } finally {
      stop()
      hooksApi.onCollectionCreate.unbind(ids[0]!)
      hooksApi.onCollectionUpdate.unbind(ids[1]!)
      hooksApi.onCollectionAfterUpdateSuccess.unbind(ids[2]!)
    }
  })

  it("accepts PocketBase's flat `fields` shape", async () => {
    const res = await apply([
      {
        name: 'flat',
        type: 'base',
        fields: [{ name: 'title', type: 'text', max: 10, required: true }],
      },
    ])
    expect(res.body.collections).toEqual([entry('flat', 'create', { fieldsAdded: ['title'] })])
    const title = ((await collection('flat')).schema as any[]).find((f) => f.name === 'title')
    expect(title).toMatchObject({ required: true, options: { max: 10 } })
    const changed = await apply([
      {
        name: 'flat',
        type: 'base',
        fields: [{ name: 'title', type: 'text', max: 20, required: true }],
      },
    ])
    expect(changed.body.collections).toEqual([
      entry('flat', 'update', { fieldsChanged: ['title'] }),
    ])
  })
})

describe('POST /api/schema/apply: GET /api/collections output applied unmodified', () => {
  let fresh: TestServer
  beforeAll(async () => {
    fresh = await startServer()
  })
  afterAll(() => fresh.close())

  it('round-trips to all unchanged, views, relations and auth collections included', async () => {
    const su = { token: fresh.suToken }
    const mk = async (body: Record<string, unknown>) => {
      const res = await fresh.api('POST', '/api/collections', { ...su, body })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body
    }
    const authors = await mk({
      name: 'authors',
      type: 'auth',
      listRule: '',
      schema: [text('nickname')],
    })
    await mk({
      name: 'books',
      type: 'base',
      listRule: '',
      indexes: ['CREATE INDEX idx_books_title ON books (title)'],
      schema: [
        text('title', { max: 100 }),
        { name: 'author', type: 'relation', options: { collectionId: authors.id, maxSelect: 1 } },
        { name: 'genre', type: 'select', options: { values: ['a', 'b'], maxSelect: 1 } },
      ],
    })
    await mk({
      name: 'book_titles',
      type: 'view',
      listRule: '',
      viewQuery: 'SELECT id, title FROM books',
    })
    const listed = await fresh.api('GET', '/api/collections?perPage=500', su)
    const all = listed.body.items as { name: string }[]
    const res = await fresh.api('POST', '/api/schema/apply', { ...su, body: listed.body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.applied).toBe(true)
    expect(res.body.collections).toEqual(all.map((c) => entry(c.name, 'unchanged')))
    const again = await fresh.api('GET', '/api/collections?perPage=500', su)
    expect(again.body).toEqual(listed.body)
    // The same list as a bare array and as {collections}.
    for (const body of [listed.body.items, { collections: listed.body.items }]) {
      const r = await fresh.api('POST', '/api/schema/apply?dryRun=1', { ...su, body })
      expect(r.body.collections).toEqual(all.map((c) => entry(c.name, 'unchanged')))
    }
  })

  it('works from the pocketbase SDK as docs/schema.md shows (getFullList, then send)', async () => {
    const pb = new PocketBase(fresh.url)
    await pb.collection('_superusers').authWithPassword(SU_EMAIL, SU_PASSWORD)
    const schema = await pb.collections.getFullList()
    const plan = await pb.send('/api/schema/apply', {
      method: 'POST',
      query: { dryRun: 1 },
      body: { collections: schema },
    })
    expect(plan.applied).toBe(false)
    expect(plan.collections).toHaveLength(schema.length)
    expect(plan.collections.filter((c: { action: string }) => c.action !== 'unchanged')).toEqual([])
  })

  it('recreates the same schema on another server from that output, relations and views included', async () => {
    const listed = await fresh.api('GET', '/api/collections?perPage=500', { token: fresh.suToken })
    const other = await startServer()
    try {
      const res = await other.api('POST', '/api/schema/apply', {
        token: other.suToken,
        body: listed.body,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const byName = new Map(
        (res.body.collections as { name: string; action: string }[]).map((e) => [e.name, e.action]),
      )
      expect(byName.get('authors')).toBe('create')
      expect(byName.get('books')).toBe('create')
      expect(byName.get('book_titles')).toBe('create')
      expect(byName.get('_superusers')).toBe('unchanged')
      const books = await other.api('GET', '/api/collections/books', { token: other.suToken })
      const sourceBooks = (listed.body.items as any[]).find((c) => c.name === 'books')
      expect(books.body.schema).toEqual(sourceBooks.schema)
      expect(books.body.id).toBe(sourceBooks.id)
      const view = await other.api('GET', '/api/collections/book_titles', { token: other.suToken })
      expect(view.body.schema.map((f: { name: string }) => f.name)).toEqual(['id', 'title'])
      // Applying it a second time changes nothing.
      const again = await other.api('POST', '/api/schema/apply', {
        token: other.suToken,
        body: listed.body,
      })
      expect(
        (again.body.collections as { action: string }[]).every((e) => e.action === 'unchanged'),
      ).toBe(true)
    } finally {
      await other.close()
    }
  })
})

describe('POST /api/schema/apply: a changed view', () => {
  it("lists a view's derived field changes and writes its new query", async () => {
    await apply([{ name: 'src_table', type: 'base', schema: [text('a'), text('b')] }])
    const created = await apply([
      { name: 'src_view', type: 'view', listRule: '', viewQuery: 'SELECT id, a FROM src_table' },
    ])
    expect(created.body.collections).toEqual([entry('src_view', 'create', { fieldsAdded: ['a'] })])
    const plannedView = await apply(
      [{ name: 'src_view2', type: 'view', viewQuery: 'SELECT id, b FROM src_table' }],
      '?dryRun=1',
    )
    expect(plannedView.body.collections).toEqual([
      entry('src_view2', 'create', { fieldsAdded: ['b'] }),
    ])
    expect(await collection('src_view2')).toBeNull()
    expect(await fieldNames('src_view')).toEqual(['id', 'a'])
    const dry = await apply(
      [{ name: 'src_view', type: 'view', viewQuery: 'SELECT id, a, b FROM src_table' }],
      '?dryRun=1',
    )
    expect(dry.body.collections).toEqual([entry('src_view', 'update', { fieldsAdded: ['b'] })])
    expect(await fieldNames('src_view')).toEqual(['id', 'a'])
    const res = await apply([
      { name: 'src_view', type: 'view', viewQuery: 'SELECT id, a, b FROM src_table' },
    ])
    expect(res.body.collections).toEqual([entry('src_view', 'update', { fieldsAdded: ['b'] })])
    expect(await fieldNames('src_view')).toEqual(['id', 'a', 'b'])
    // A field added to the table and selected by the view in the same payload.
    const both = await apply([
      { name: 'src_table', type: 'base', schema: [text('a'), text('b'), text('c')] },
      { name: 'src_view', type: 'view', viewQuery: 'SELECT id, a, b, c FROM src_table' },
    ])
    expect(both.status, JSON.stringify(both.body)).toBe(200)
    expect(both.body.collections).toEqual([
      entry('src_table', 'update', { fieldsAdded: ['c'] }),
      entry('src_view', 'update', { fieldsAdded: ['c'] }),
    ])
    // A broken query is a 400 naming the view.
    const bad = await apply([
      { name: 'src_view', type: 'view', viewQuery: 'SELECT id, zzz FROM src_table' },
    ])
    expect(bad.status).toBe(400)
    expect(bad.body.message).toBe('Failed to apply the schema of collection "src_view".')
    expect(bad.body.data.src_view.viewQuery.code).toBe('validation_invalid_view_query')
  })
})

describe('schema feature switched off', () => {
  it('has no /api/schema/apply route (404, not the 501 of a feature not built)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-schema-off-'))
    const server = await createServer(
      { dataDir: dir, logger: silentLogger },
      { disable: ['schema'] },
    )
    try {
      const res = await server.http.inject({
        method: 'POST',
        url: '/api/schema/apply',
        payload: [],
      })
      expect(res.statusCode).toBe(404)
    } finally {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
