import { readFileSync } from 'node:fs'
import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'

/**
 * A schema exported by PocketBase v0.23+ ("Export collections"), 15 collections: PocketBase's
 * own system collections with their default rules and indexes, a users ↔ devices cycle,
 * relations and an `@collection` rule pointing forward, back-relation rules, partial and
 * expression indexes, file fields, field ids carried over from v0.22 (`users_avatar`), custom
 * ids on autodate fields, and views (one reading a later view, one with a double-quoted literal).
 */
const fixture = (): any[] =>
  JSON.parse(readFileSync(new URL('./fixtures/pocketbase-export.json', import.meta.url), 'utf8'))

const importBody = (collections: unknown, deleteMissing = false) => ({
  collections,
  deleteMissing,
})

/** Everything the schema is made of: tables, indexes, views and the collection rows. */
async function schemaDump(t: TestServer, withUpdated = true): Promise<unknown> {
  const db = t.server.app.db
  const objects = await db.all(
    raw(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    ),
  )
  const rows = await db.all<Record<string, unknown>>(raw('SELECT * FROM _collections ORDER BY id'))
  return {
    objects,
    rows: rows.map(({ updated, ...rest }) => (withUpdated ? { ...rest, updated } : rest)),
  }
}

/** The JSON of an import failure's message (`Data validations failed for "x" (id):\n{…}`). */
function failureDetail(body: any): { name: string; errors: any } {
  expect(body.message).toBe('Failed to import collections.')
  expect(body.data.collections.code).toBe('validation_collections_import_failure')
  const m = /^Data validations failed for collection "(.*)" \(.*\):\n([\s\S]*)$/.exec(
    body.data.collections.message,
  )
  expect(m, body.data.collections.message).not.toBeNull()
  // Messages are sent as sentences: the JSON of the errors gets a closing period.
  let errors: unknown = m![2]
  try {
    errors = JSON.parse(m![2]!.replace(/\.$/, ''))
  } catch {
    // a plain message
  }
  return { name: m![1]!, errors }
}

describe('PUT /api/collections/import: a PocketBase v0.23 export, unchanged', () => {
  let t: TestServer
  let su: string
  const api = (method: string, path: string, body?: unknown, token: string | null = su) =>
    t.api(method, path, { token, body })
  const signIn = async (email: string) =>
    (
      await api(
        'POST',
        '/api/collections/users/auth-with-password',
        { identity: email, password: 'password123' },
        null,
      )
    ).body.token as string

  beforeAll(async () => {
    t = await startServer()
    su = t.suToken
    // A user from before the import: the export names its fields `users_name`, `users_avatar`.
    const ada = await api(
      'POST',
      '/api/collections/users/records',
      {
        email: 'ada@example.com',
        password: 'password123',
        passwordConfirm: 'password123',
        name: 'Ada',
      },
      null,
    )
    expect(ada.status, JSON.stringify(ada.body)).toBe(200)
  })
  afterAll(() => t.close())

  it('succeeds in one request and keeps the data of fields matched by name and type', async () => {
    const usersBefore = (await api('GET', '/api/collections/users')).body
    const res = await api('PUT', '/api/collections/import', importBody(fixture()))
    expect(res.status, JSON.stringify(res.body)).toBe(204)

    const users = (await api('GET', '/api/collections/users')).body
    const idOf = (c: any, name: string) => c.fields.find((f: any) => f.name === name)?.id
    // users_avatar / users_name matched the stored fields by name and type: ids and data kept.
    expect(idOf(users, 'avatar')).toBe(idOf(usersBefore, 'avatar'))
    expect(idOf(users, 'name')).toBe(idOf(usersBefore, 'name'))
    const ada = await api(
      'GET',
      '/api/collections/users/records?filter=' + encodeURIComponent("email='ada@example.com'"),
    )
    expect(ada.body.items[0].name).toBe('Ada')
    expect(users.indexes).toEqual([
      'CREATE UNIQUE INDEX `idx_tokenKey__pb_users_auth_` ON `users` (`tokenKey`)',
      "CREATE UNIQUE INDEX `idx_email__pb_users_auth_` ON `users` (`email` COLLATE NOCASE) WHERE `email` != ''",
    ])
    expect(users.oauth2.mappedFields).toMatchObject({ name: 'name', avatarURL: 'avatar' })

    // The cycle users ↔ devices and relations to collections later in the list.
    const devices = (await api('GET', '/api/collections/devices')).body
    const posts = (await api('GET', '/api/collections/posts')).body
    const categories = (await api('GET', '/api/collections/categories')).body
    const relTarget = (c: any, name: string) =>
      c.fields.find((f: any) => f.name === name)?.collectionId
    expect(relTarget(users, 'devices')).toBe(devices.id)
    expect(relTarget(devices, 'owner')).toBe('_pb_users_auth_')
    expect(relTarget(posts, 'category')).toBe(categories.id)
    expect(posts.id).toBe(fixture().find((c) => c.name === 'posts').id)

    // Custom ids on created/updated of a new collection, and their imported system: false.
    expect(devices.fields.filter((f: any) => f.type === 'autodate')).toMatchObject([
      { id: 'autodate_my_created', name: 'created', system: false },
      { id: 'autodate_my_updated', name: 'updated', system: false },
    ])
    expect(posts.fields.find((f: any) => f.name === 'created').system).toBe(false)

    // Partial and expression indexes, kept as written (PocketBase's own text).
    expect(posts.indexes).toEqual([
      "CREATE UNIQUE INDEX `idx_posts_slug` ON `posts` (`slug`) WHERE `slug` != ''",
      'CREATE INDEX `idx_posts_title_lower` ON `posts` (lower(title))',
      'CREATE INDEX `idx_posts_author_created` ON `posts` (`author`, `created` DESC)',
    ])
    const ddl = await t.server.app.db.all<{ sql: string }>(
      raw(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'posts' ORDER BY name",
      ),
    )
    expect(ddl.map((r) => r.sql)).toContain(
      'CREATE INDEX "idx_posts_title_lower" ON "posts" (lower("title"))',
    )

    // PocketBase's own system collections keep PocketBase's exact rules.
    const mfas = (await api('GET', '/api/collections/_mfas')).body
    expect(mfas.listRule).toBe(
      "@request.auth.id != '' && recordRef = @request.auth.id && collectionRef = @request.auth.collectionId",
    )
    expect(mfas.system).toBe(true)

    // Views: a double-quoted literal, PocketBase's column types, and a view on a later view.
    const stats = (await api('GET', '/api/collections/post_stats')).body
    expect(stats.viewQuery).toContain("'article' AS kind")
    expect(stats.fields.map((f: any) => [f.name, f.type])).toEqual([
      ['id', 'text'],
      ['title', 'text'],
      ['author', 'relation'],
      ['total_comments', 'number'],
      ['kind', 'json'],
      ['is_public', 'bool'],
      ['created', 'autodate'],
    ])
    expect(stats.fields[0]).toMatchObject({
      required: true,
      primaryKey: true,
      pattern: '^[a-z0-9]+$',
      system: true,
    })
    const popular = (await api('GET', '/api/collections/popular_posts')).body
    expect(popular.fields.map((f: any) => [f.name, f.type])).toEqual([
      ['id', 'text'],
      ['title', 'text'],
      ['total_comments', 'number'],
    ])
  })

  it('works as imported: partial unique indexes, back-relation rules, views', async () => {
    const bob = await api(
      'POST',
      '/api/collections/users/records',
      { email: 'bob@example.com', password: 'password123', passwordConfirm: 'password123' },
      null,
    )
    expect(bob.status).toBe(200)
    const adaToken = await signIn('ada@example.com')
    const bobToken = await signIn('bob@example.com')
    const ada = (
      await api(
        'GET',
        '/api/collections/users/records?filter=' + encodeURIComponent("email='ada@example.com'"),
      )
    ).body.items[0]

    // devices: the serial is unique only when set (WHERE `serial` != '' AND `serial` IS NOT NULL).
    const device = (body: object) =>
      api('POST', '/api/collections/devices/records', { owner: ada.id, ...body }, adaToken)
    expect((await device({ name: 'a' })).status).toBe(200)
    expect((await device({ name: 'b' })).status).toBe(200)
    expect((await device({ name: 'c', serial: 'S1' })).status).toBe(200)
    const dup = await device({ name: 'd', serial: 'S1' })
    expect(dup.status).toBe(400)
    expect(dup.body.data.serial.code).toBe('validation_not_unique')

    // tags: unique case-insensitively.
    expect(
      (await api('POST', '/api/collections/tags/records', { name: 'News' }, adaToken)).status,
    ).toBe(200)
    expect(
      (await api('POST', '/api/collections/tags/records', { name: 'news' }, adaToken)).status,
    ).toBe(400)

    const post = await api(
      'POST',
      '/api/collections/posts/records',
      { title: 'Draft', author: ada.id, published: false },
      adaToken,
    )
    expect(post.status, JSON.stringify(post.body)).toBe(200)
    const bobSees = async () =>
      (await api('GET', '/api/collections/posts/records', undefined, bobToken)).body.totalItems
    expect(await bobSees()).toBe(0)
    // Back-relation rule: a commenter sees the post (comments_via_post.author ?= auth.id).
    const comment = await api('POST', '/api/collections/comments/records', {
      post: post.body.id,
      author: bob.body.id,
      message: 'hello',
    })
    expect(comment.status, JSON.stringify(comment.body)).toBe(200)
    expect(await bobSees()).toBe(1)

    const stats = await api('GET', `/api/collections/post_stats/records/${post.body.id}`)
    expect(stats.body).toMatchObject({ total_comments: 1, kind: 'article', is_public: false })
  })

  it('imports again, with and without deleteMissing, as no change', async () => {
    const before = await schemaDump(t, false)
    const again = await api('PUT', '/api/collections/import', importBody(fixture()))
    expect(again.status, JSON.stringify(again.body)).toBe(204)
    expect(await schemaDump(t, false)).toEqual(before)
    const strict = await api('PUT', '/api/collections/import', importBody(fixture(), true))
    expect(strict.status, JSON.stringify(strict.body)).toBe(204)
    expect(await schemaDump(t, false)).toEqual(before)
    expect((await api('GET', '/api/collections/posts/records')).body.totalItems).toBe(1)
  })
})

describe('PUT /api/collections/import: all or nothing', () => {
  let t: TestServer
  let su: string
  const put = (collections: unknown, deleteMissing = false) =>
    t.api('PUT', '/api/collections/import', { token: su, body: { collections, deleteMissing } })

  beforeAll(async () => {
    t = await startServer()
    su = t.suToken
    await t.api('POST', '/api/collections', {
      token: su,
      body: {
        name: 'keep',
        fields: [{ name: 'a', type: 'text' }],
        indexes: ['CREATE INDEX idx_keep_a ON keep (a)'],
      },
    })
    await t.api('POST', '/api/collections', {
      token: su,
      body: { name: 'keep_view', type: 'view', viewQuery: 'SELECT id, a FROM keep' },
    })
    await t.api('POST', '/api/collections/keep/records', { token: su, body: { a: 'x' } })
  })
  afterAll(() => t.close())

  const failing: [string, (c: any[]) => any[], string][] = [
    [
      'a rule on the last collection',
      (c) => c.map((x) => (x.name === 'active_devices' ? { ...x, listRule: 'nope = 1' } : x)),
      'active_devices',
    ],
    [
      'a view query',
      (c) =>
        c.map((x) => (x.name === 'post_stats' ? { ...x, viewQuery: 'SELECT id FROM nope' } : x)),
      'post_stats',
    ],
    [
      'a relation to a missing collection',
      (c) =>
        c.map((x) =>
          x.name === 'comments'
            ? {
                ...x,
                fields: x.fields.map((f: any) =>
                  f.name === 'post' ? { ...f, collectionId: 'pbc_missing' } : f,
                ),
              }
            : x,
        ),
      'comments',
    ],
  ]

  it.each(failing)(
    'a failure in %s leaves every table, index and row as before',
    async (_, edit, name) => {
      const before = await schemaDump(t)
      const list = await t.api('GET', '/api/collections?perPage=200', { token: su })
      // deleteMissing too: the dropped collections must come back.
      const res = await put(edit(fixture()), true)
      expect(res.status).toBe(400)
      expect(failureDetail(res.body).name).toBe(name)
      expect(await schemaDump(t)).toEqual(before)
      expect((await t.api('GET', '/api/collections?perPage=200', { token: su })).body).toEqual(
        list.body,
      )
      expect(
        (await t.api('GET', '/api/collections/keep_view/records', { token: su })).body.totalItems,
      ).toBe(1)
    },
  )

  it('reports errors at PocketBase v0.23 paths (fields.N.x)', async () => {
    const res = await put([
      {
        name: 'bad_fields',
        type: 'base',
        fields: [
          { name: 'kind', type: 'select', values: [], maxSelect: 1 },
          { name: 'ref', type: 'relation', collectionId: 'pbc_missing', maxSelect: 1 },
        ],
      },
    ])
    expect(res.status).toBe(400)
    const { errors } = failureDetail(res.body)
    expect(errors.schema).toBeUndefined()
    // Positions in the saved field list: id comes first. As in PocketBase, the detail gives each
    // error's raw message (ozzo's own lower-case).
    expect(errors.fields['1'].values).toBe('cannot be blank')
    expect(errors.fields['2'].collectionId).toBe("The relation collection doesn't exist.")
    expect(JSON.stringify(errors)).not.toContain('options')
  })

  it('explains DDL refusals: clashing field names, a unique index over duplicate data', async () => {
    const before = await schemaDump(t)
    const clash = await put([
      {
        name: 'clash',
        type: 'base',
        fields: [
          { name: 'a', type: 'text' },
          { name: 'A', type: 'text' },
          { name: 'ref', type: 'relation', collectionId: 'pbc_later', maxSelect: 1 },
        ],
      },
      { id: 'pbc_later', name: 'later', type: 'base' },
    ])
    expect(clash.status).toBe(400)
    const { errors } = failureDetail(clash.body)
    expect(errors).toEqual({ fields: { '2': { name: 'Duplicated or invalid field name A.' } } })
    await t.api('POST', '/api/collections/keep/records', { token: su, body: { a: 'x' } })
    const keep = await t.api('GET', '/api/collections/keep', { token: su })
    const unique = await put([
      { ...keep.body, indexes: ['CREATE UNIQUE INDEX idx_keep_a ON keep (a)'] },
    ])
    expect(unique.status).toBe(400)
    expect(failureDetail(unique.body).errors).toMatch(/^Raw error: unique constraint failed/i)
    const patched = await t.api('PATCH', '/api/collections/keep', {
      token: su,
      body: { indexes: ['CREATE UNIQUE INDEX idx_keep_a ON keep (a)'] },
    })
    expect(patched.status).toBe(400)
    // As PocketBase: at the index that failed.
    expect(patched.body.message).toBe('Failed to update collection.')
    expect(patched.body.data.indexes['0'].message).toMatch(/^Failed to create index idx_keep_a - /)
    await t.api(
      'DELETE',
      `/api/collections/keep/records/${(await t.api('GET', '/api/collections/keep/records?sort=-created', { token: su })).body.items[0].id}`,
      { token: su },
    )
    expect(await schemaDump(t)).toEqual(before)
  })

  it('refuses a change of PocketBase system rules, and takes their default as no change', async () => {
    const app = t.server.app
    // An older database may store a variant of the default rule.
    const legacy = 'recordRef = @request.auth.id && collectionRef = @request.auth.collectionId'
    await app.runInTransaction(async (tx) => {
      const c = tx.collections.get('_mfas')
      await tx.collections.save({ ...c, listRule: legacy, viewRule: legacy }, c)
    })
    const mfas = fixture().find((c) => c.name === '_mfas')
    expect((await put([mfas])).status).toBe(204)
    const kept = await t.api('GET', '/api/collections/_mfas', { token: su })
    expect(kept.body.listRule).toBe(legacy)
    const changed = await put([{ ...mfas, listRule: 'recordRef = @request.auth.id' }])
    expect(changed.status).toBe(400)
    expect(failureDetail(changed.body).errors.listRule).toBe(
      'System collection API rule cannot be changed.',
    )
  })
})

describe('PUT /api/collections/import: each PocketBase habit on its own', () => {
  let t: TestServer
  let su: string
  const put = (collections: unknown, deleteMissing = false) =>
    t.api('PUT', '/api/collections/import', { token: su, body: { collections, deleteMissing } })
  const get = async (name: string) =>
    (await t.api('GET', `/api/collections/${name}`, { token: su })).body

  beforeAll(async () => {
    t = await startServer()
    su = t.suToken
  })
  afterAll(() => t.close())

  it('takes relations and @collection rules that point forward, at views, or in a cycle', async () => {
    const res = await put([
      {
        id: 'pbc_owners',
        name: 'owners',
        type: 'base',
        listRule: '@collection.pets_summary.owner ?= id',
        fields: [{ name: 'favourite', type: 'relation', collectionId: 'pbc_pets', maxSelect: 1 }],
      },
      {
        id: 'pbc_pets',
        name: 'pets',
        type: 'base',
        listRule: 'owner.favourite = id || @collection.owners.id ?= owner',
        fields: [{ name: 'owner', type: 'relation', collectionId: 'pbc_owners', maxSelect: 1 }],
      },
      {
        name: 'pets_summary',
        type: 'view',
        viewQuery: 'SELECT id, owner FROM pets',
      },
    ])
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    expect((await get('owners')).listRule).toBe('@collection.pets_summary.owner ?= id')
  })

  it('keeps stored field ids when an export names them differently', async () => {
    const notes = await t.api('POST', '/api/collections', {
      token: su,
      body: { name: 'notes', listRule: '', fields: [{ name: 'body', type: 'text' }] },
    })
    await t.api('POST', '/api/collections/notes/records', { token: su, body: { body: 'kept' } })
    const res = await put([
      {
        id: notes.body.id,
        name: 'notes',
        type: 'base',
        fields: [
          {
            id: 'my_pk',
            name: 'id',
            type: 'text',
            primaryKey: true,
            required: true,
            system: true,
            min: 15,
            max: 15,
            pattern: '^[a-z0-9]+$',
            autogeneratePattern: '[a-z0-9]{15}',
          },
          { id: 'notes_body', name: 'body', type: 'text', max: 500 },
          { id: 'autodate_my_created', name: 'created', type: 'autodate', onCreate: true },
        ],
      },
    ])
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    const after = await get('notes')
    const before = notes.body.fields
    for (const name of ['id', 'body', 'created']) {
      expect(after.fields.find((f: any) => f.name === name).id).toBe(
        before.find((f: any) => f.name === name).id,
      )
    }
    expect(after.fields.find((f: any) => f.name === 'body').max).toBe(500)
    const records = await t.api('GET', '/api/collections/notes/records')
    expect(records.body.items[0].body).toBe('kept')
  })

  it('reads double-quoted literals and casts in view queries as PocketBase does', async () => {
    await t.api('POST', '/api/collections', {
      token: su,
      body: { name: 'items', createRule: '', fields: [{ name: 'on', type: 'number' }] },
    })
    await t.api('POST', '/api/collections/items/records', { body: { on: 1 } })
    const res = await put([
      {
        name: 'items_view',
        type: 'view',
        listRule: '',
        viewQuery:
          'SELECT id, "abc" AS kind, CAST(`on` AS BOOL) AS flag, CAST(`on` AS TEXT) AS label FROM items',
      },
    ])
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    const view = await get('items_view')
    expect(view.fields.map((f: any) => [f.name, f.type])).toEqual([
      ['id', 'text'],
      ['kind', 'json'],
      ['flag', 'bool'],
      ['label', 'text'],
    ])
    const rows = await t.api('GET', '/api/collections/items_view/records')
    expect(rows.body.items[0]).toMatchObject({ kind: 'abc', flag: true, label: '1' })
  })
})

describe('the official pocketbase SDK imports the export', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(() => t.close())

  it('pb.collections.import(export) and the collections read back', async () => {
    const pb = new PocketBase(t.url)
    pb.authStore.save(t.suToken)
    await expect(pb.collections.import(fixture())).resolves.toBe(true)
    const list = await pb.collections.getFullList({ filter: 'system = false', sort: 'name' })
    expect(list.map((c) => c.name)).toEqual([
      'active_devices',
      'categories',
      'comments',
      'devices',
      'popular_posts',
      'post_stats',
      'posts',
      'reactions',
      'tags',
      'users',
    ])
    await expect(pb.collections.import(fixture(), true)).resolves.toBe(true)
  })
})
