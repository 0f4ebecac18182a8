import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

describe('collections API', () => {
  let t: TestServer
  let su: string
  const post = (body: unknown) => t.api('POST', '/api/collections', { token: su, body })

  beforeAll(async () => {
    t = await startServer()
    su = t.suToken
  })
  afterAll(() => t.close())

  it('lists the system collections created at first start', async () => {
    const res = await t.api('GET', '/api/collections?perPage=100', { token: su })
    expect(res.status).toBe(200)
    const names = res.body.items.map((c: any) => c.name)
    for (const n of [
      '_superusers',
      '_webhooks',
      '_teams',
      '_team_members',
      '_audit_log',
      '_push_subscriptions',
      '_cron_jobs',
      '_api_keys',
      '_logs',
      'users',
    ]) {
      expect(names).toContain(n)
    }
    const logs = res.body.items.find((c: any) => c.name === '_logs')
    expect(logs.system).toBe(true)
    const push = res.body.items.find((c: any) => c.name === '_push_subscriptions')
    expect(push.schema.map((f: any) => f.name)).toEqual(
      expect.arrayContaining(['platform', 'recordRef', 'enabled']),
    )
    const filtered = await t.api(
      'GET',
      `/api/collections?filter=${encodeURIComponent("type = 'auth'")}&sort=-name`,
      { token: su },
    )
    expect(filtered.body.items.map((c: any) => c.name)).toEqual(['users', '_superusers'])
    const logsList = await t.api('GET', '/api/collections/_logs/records', { token: su })
    expect(logsList.status).toBe(200)
    expect(logsList.body.items).toEqual([])
  })

  it('creates a base collection with schema, created/updated and both field shapes', async () => {
    const res = await post({
      name: 'posts',
      type: 'base',
      listRule: '',
      schema: [
        { name: 'title', type: 'text', required: true, options: { max: 10 } },
        { name: 'score', type: 'number', unique: true },
      ],
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toMatchObject({
      name: 'posts',
      type: 'base',
      listRule: '',
      viewRule: null,
      system: false,
    })
    expect(res.body.id).toMatch(/^pbc_\d+$/)
    expect(res.body.schema.map((f: any) => f.name)).toEqual([
      'id',
      'title',
      'score',
      'created',
      'updated',
    ])
    const title = res.body.schema.find((f: any) => f.name === 'title')
    expect(title).toMatchObject({
      type: 'text',
      required: true,
      unique: false,
      options: { max: 10 },
    })
    expect(res.body.fields.find((f: any) => f.name === 'title')).toMatchObject({
      type: 'text',
      max: 10,
      required: true,
    })
    const flat = await post({
      name: 'flatstyle',
      fields: [{ name: 'age', type: 'number', min: 1, onlyInt: true }],
    })
    expect(flat.status).toBe(200)
    expect(flat.body.schema.find((f: any) => f.name === 'age').options).toMatchObject({
      min: 1,
      onlyInt: true,
    })
    const view = await t.api('GET', '/api/collections/posts', { token: su })
    expect(view.body.id).toBe(res.body.id)
    expect((await t.api('GET', `/api/collections/${res.body.id}`, { token: su })).body.name).toBe(
      'posts',
    )
  })

  it('refuses invalid collections with field errors', async () => {
    const cases: [unknown, string, string][] = [
      [{ name: '' }, 'name', 'validation_required'],
      [{ name: 'bad name' }, 'name', 'validation_match_invalid'],
      [{ name: 'posts' }, 'name', 'validation_collection_name_exists'],
      [{ name: 'POSTS' }, 'name', 'validation_collection_name_exists'],
      // PocketBase accepts other names starting with `_`; its internal tables are refused.
      [{ name: '_collections' }, 'name', 'validation_collection_name_invalid'],
      [{ name: 'x1', type: 'weird' }, 'type', 'validation_in_invalid'],
      [{ name: 'x2', listRule: 'nofield = 1' }, 'listRule', 'validation_invalid_rule'],
    ]
    for (const [body, key, code] of cases) {
      const res = await post(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.message).toBe('Failed to create collection.')
      expect(res.body.data[key]?.code, JSON.stringify(res.body)).toBe(code)
    }
    const dupField = await post({
      name: 'x3',
      schema: [
        { name: 'a', type: 'text' },
        { name: 'A', type: 'text' },
      ],
    })
    // Errors are keyed by the position in the saved schema (id is prepended when omitted).
    const codesOf = (data: any, key: string) =>
      Object.values(data.schema).map((e: any) => e[key]?.code)
    expect(codesOf(dupField.body.data, 'name')).toContain('validation_duplicated_field_name')
    const badType = await post({ name: 'x4', schema: [{ name: 'a', type: 'nope' }] })
    expect(badType.status).toBe(400)
    const badSelect = await post({
      name: 'x5',
      schema: [{ name: 's', type: 'select', options: { values: [] } }],
    })
    expect(
      Object.values(badSelect.body.data.schema).map((e: any) => e.options?.values?.code),
    ).toContain('validation_required')
  })

  it('updates schema: rename, add, remove fields and keeps data', async () => {
    const c = await post({
      name: 'evolve',
      listRule: '',
      createRule: '',
      schema: [
        { name: 'a', type: 'text' },
        { name: 'b', type: 'text' },
        { name: 'tags', type: 'select', options: { values: ['x', 'y'], maxSelect: 1 } },
      ],
    })
    const rec = await t.api('POST', '/api/collections/evolve/records', {
      body: { a: 'keep me', b: 'drop me', tags: 'x' },
    })
    expect(rec.status).toBe(200)
    const fields = c.body.schema
      .map((f: any) => (f.name === 'a' ? { ...f, name: 'renamed' } : f))
      .filter((f: any) => f.name !== 'b')
    fields.push({ name: 'added', type: 'number' })
    fields.forEach((f: any) => {
      if (f.name === 'tags') f.options = { ...f.options, maxSelect: 2 }
    })
    const upd = await t.api('PATCH', '/api/collections/evolve', {
      token: su,
      body: { schema: fields, name: 'evolved' },
    })
    expect(upd.status, JSON.stringify(upd.body)).toBe(200)
    const after = await t.api('GET', `/api/collections/evolved/records/${rec.body.id}`, {
      token: su,
    })
    expect(after.body).toMatchObject({ renamed: 'keep me', added: 0, tags: ['x'] })
    expect(after.body.b).toBeUndefined()
    const typeChange = await t.api('PATCH', '/api/collections/evolved', {
      token: su,
      body: { type: 'auth' },
    })
    expect(typeChange.status).toBe(400)
    expect(typeChange.body.data.type.code).toBe('validation_collection_type_change')
    const fieldType = await t.api('PATCH', '/api/collections/evolved', {
      token: su,
      body: {
        schema: upd.body.schema.map((f: any) =>
          f.name === 'added' ? { ...f, type: 'text', options: {} } : f,
        ),
      },
    })
    expect(fieldType.status).toBe(400)
  })

  it('creates unique and plain indexes', async () => {
    const c = await post({
      name: 'indexed',
      createRule: '',
      schema: [
        { name: 'code', type: 'text' },
        { name: 'n', type: 'number' },
      ],
      indexes: [
        'CREATE UNIQUE INDEX idx_code ON indexed (code)',
        'CREATE INDEX idx_n ON indexed (n DESC)',
      ],
    })
    expect(c.status, JSON.stringify(c.body)).toBe(200)
    expect(c.body.indexes).toHaveLength(2)
    expect(
      (await t.api('POST', '/api/collections/indexed/records', { body: { code: 'A' } })).status,
    ).toBe(200)
    const dup = await t.api('POST', '/api/collections/indexed/records', { body: { code: 'A' } })
    expect(dup.status).toBe(400)
    expect(dup.body.data.code.code).toBe('validation_not_unique')
    const bad = await post({
      name: 'badidx',
      schema: [{ name: 'x', type: 'text' }],
      indexes: ['DROP TABLE users'],
    })
    expect(bad.status).toBe(400)
    expect(bad.body.data.indexes['0'].code).toBe('validation_invalid_index_expression')
  })

  it('creates auth collections and read-only view collections', async () => {
    const auth = await post({ name: 'members', type: 'auth', listRule: '' })
    expect(auth.status, JSON.stringify(auth.body)).toBe(200)
    expect(auth.body.schema.map((f: any) => f.name)).toEqual([
      'id',
      'password',
      'tokenKey',
      'email',
      'emailVisibility',
      'verified',
      'created',
      'updated',
    ])
    expect(auth.body.authOptions.authToken).toEqual({ duration: 432000 })
    expect(JSON.stringify(auth.body)).not.toMatch(/secret/i)
    await post({
      name: 'stock',
      listRule: '',
      createRule: '',
      schema: [
        { name: 'label', type: 'text' },
        { name: 'qty', type: 'number' },
      ],
    })
    for (const [label, qty] of [
      ['a', 1],
      ['b', 5],
      ['c', 9],
    ] as const)
      await t.api('POST', '/api/collections/stock/records', { body: { label, qty } })
    const view = await post({
      name: 'bigstock',
      type: 'view',
      listRule: '',
      viewRule: '',
      viewQuery: 'SELECT id, label, qty FROM stock WHERE qty > 2',
    })
    expect(view.status, JSON.stringify(view.body)).toBe(200)
    expect(view.body.schema.map((f: any) => [f.name, f.type])).toEqual([
      ['id', 'text'],
      ['label', 'text'],
      ['qty', 'number'],
    ])
    const list = await t.api('GET', '/api/collections/bigstock/records?sort=qty')
    expect(list.status, JSON.stringify(list.body)).toBe(200)
    expect(list.body.items.map((r: any) => r.label)).toEqual(['b', 'c'])
    const one = await t.api('GET', `/api/collections/bigstock/records/${list.body.items[0].id}`)
    expect(one.body.qty).toBe(5)
    const write = await t.api('POST', '/api/collections/bigstock/records', {
      token: su,
      body: { label: 'x' },
    })
    expect(write.status).toBe(400)
    expect(write.body.message).toBe('Unsupported collection type.')
    const badView = await post({ name: 'badview', type: 'view', viewQuery: 'DELETE FROM stock' })
    expect(badView.body.data.viewQuery.code).toBe('validation_invalid_view_query')
    const noId = await post({ name: 'noid', type: 'view', viewQuery: 'SELECT label FROM stock' })
    expect(noId.status).toBe(400)
    const multi = await post({
      name: 'multi',
      type: 'view',
      viewQuery: 'SELECT id FROM stock; DROP TABLE stock',
    })
    expect(multi.status).toBe(400)
    expect((await t.api('GET', '/api/collections/stock/records')).body.totalItems).toBe(3)
    const refused = await t.api('DELETE', '/api/collections/stock', { token: su })
    expect(refused.status).toBe(400)
  })

  it('truncates records but keeps schema and rules; 404 for unknown', async () => {
    await post({
      name: 'trunc',
      listRule: '',
      createRule: '',
      schema: [{ name: 'v', type: 'text' }],
    })
    for (let i = 0; i < 3; i++)
      await t.api('POST', '/api/collections/trunc/records', { body: { v: String(i) } })
    const res = await t.api('DELETE', '/api/collections/trunc/truncate', { token: su })
    expect(res.status).toBe(204)
    expect((await t.api('GET', '/api/collections/trunc/records')).body.totalItems).toBe(0)
    const c = await t.api('GET', '/api/collections/trunc', { token: su })
    expect(c.body.listRule).toBe('')
    expect(c.body.schema.map((f: any) => f.name)).toContain('v')
    expect((await t.api('DELETE', '/api/collections/nope/truncate', { token: su })).status).toBe(
      404,
    )
  })

  it('deletes collections, refusing system and referenced ones', async () => {
    const target = await post({ name: 'target', schema: [{ name: 'v', type: 'text' }] })
    await post({
      name: 'pointer',
      schema: [
        { name: 'ref', type: 'relation', options: { collectionId: target.body.id, maxSelect: 1 } },
      ],
    })
    const refused = await t.api('DELETE', '/api/collections/target', { token: su })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toMatch(/pointer/)
    expect((await t.api('DELETE', '/api/collections/_superusers', { token: su })).status).toBe(400)
    expect((await t.api('DELETE', '/api/collections/pointer', { token: su })).status).toBe(204)
    expect((await t.api('DELETE', '/api/collections/target', { token: su })).status).toBe(204)
    expect((await t.api('GET', '/api/collections/target', { token: su })).status).toBe(404)
    expect((await t.api('GET', '/api/collections/target/records', { token: su })).status).toBe(404)
  })

  it('returns scaffolds: base has only id, auth has its system fields', async () => {
    const res = await t.api('GET', '/api/collections/meta/scaffolds', { token: su })
    expect(res.status).toBe(200)
    expect(res.body.base.schema.map((f: any) => f.name)).toEqual(['id'])
    expect(res.body.auth.schema.map((f: any) => f.name)).toEqual([
      'id',
      'password',
      'tokenKey',
      'email',
      'emailVisibility',
      'verified',
    ])
    expect(res.body.view.type).toBe('view')
  })
})

describe('collections import', () => {
  let t: TestServer
  let su: string
  beforeAll(async () => {
    t = await startServer()
    su = t.suToken
    await t.api('POST', '/api/collections', {
      token: su,
      body: {
        name: 'keepme',
        schema: [
          { name: 'a', type: 'text' },
          { name: 'b', type: 'text' },
        ],
      },
    })
    await t.api('POST', '/api/collections', {
      token: su,
      body: { name: 'dropme', schema: [{ name: 'x', type: 'text' }] },
    })
  })
  afterAll(() => t.close())

  const names = async () =>
    (await t.api('GET', '/api/collections?perPage=200', { token: su })).body.items
      .map((c: any) => c.name)
      .sort()

  it('is all-or-nothing: one invalid collection leaves the schema untouched', async () => {
    const before = await names()
    const res = await t.api('PUT', '/api/collections/import', {
      token: su,
      body: {
        collections: [
          { name: 'fresh1', schema: [{ name: 'v', type: 'text' }] },
          { name: 'bad name!', schema: [] },
        ],
        deleteMissing: true,
      },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Failed to import collections.')
    expect(res.body.data.collections.code).toBe('validation_collections_import_failure')
    expect(await names()).toEqual(before)
    expect((await t.api('GET', '/api/collections/fresh1/records', { token: su })).status).toBe(404)
  })

  it('merges without deleteMissing and replaces with it', async () => {
    const empty = await t.api('PUT', '/api/collections/import', {
      token: su,
      body: { collections: [] },
    })
    expect(empty.status).toBe(400)
    const merge = await t.api('PUT', '/api/collections/import', {
      token: su,
      body: {
        collections: [
          { name: 'keepme', schema: [{ name: 'c', type: 'number' }] },
          { name: 'fresh2', schema: [{ name: 'v', type: 'text' }] },
        ],
      },
    })
    expect(merge.status, JSON.stringify(merge.body)).toBe(204)
    const keep = await t.api('GET', '/api/collections/keepme', { token: su })
    expect(keep.body.schema.map((f: any) => f.name)).toEqual(
      expect.arrayContaining(['a', 'b', 'c']),
    )
    expect(await names()).toEqual(expect.arrayContaining(['dropme', 'fresh2', 'keepme']))
    const replace = await t.api('PUT', '/api/collections/import', {
      token: su,
      body: {
        deleteMissing: true,
        collections: [{ name: 'keepme', schema: [{ name: 'a', type: 'text' }] }],
      },
    })
    expect(replace.status, JSON.stringify(replace.body)).toBe(204)
    const after = await names()
    expect(after).not.toContain('dropme')
    expect(after).not.toContain('fresh2')
    expect(after).toContain('_superusers')
    expect(after).toContain('keepme')
    const kept = await t.api('GET', '/api/collections/keepme', { token: su })
    expect(
      kept.body.schema
        .map((f: any) => f.name)
        .filter((n: string) => !['id', 'created', 'updated'].includes(n)),
    ).toEqual(['a'])
  })
})
