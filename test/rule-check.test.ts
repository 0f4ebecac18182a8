/**
 * `recordMatches`: rules and client filters evaluated against a record's values (a one-row
 * derived table) instead of its stored row. Parity with the table is checked by running the
 * same filters through the list endpoint's SQL; rules with relation paths, back-relations and
 * `@collection` subquery the other tables; a deleted record still matches by its data.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/core/app.js'
import { createApp } from '../src/core/create-app.js'
import { systemRequest } from '../src/core/auth/superusers.js'
import type { Collection } from '../src/core/collections/model.js'
import { ApiError } from '../src/core/errors.js'
import { silentLogger } from '../src/core/logger.js'
import { recordMatches } from '../src/core/records/rule-check.js'
import { internalRequest, type RecordData, type RequestInfo } from '../src/core/request-info.js'

describe('recordMatches', () => {
  let app: App
  let dir: string
  const users: Record<string, RecordData> = {}
  const posts: Record<string, RecordData> = {}

  const su = () => systemRequest(app)
  const as = (who: string, more: Partial<RequestInfo> = {}): RequestInfo =>
    internalRequest({
      auth: { record: users[who]!, collection: app.collections.get('users') },
      context: 'realtime',
      ...more,
    })
  const guest = (more: Partial<RequestInfo> = {}) =>
    internalRequest({ context: 'realtime', ...more })
  const coll = (name: string): Collection => app.collections.get(name)
  /** Sets the rules of `posts` and returns the fresh collection. */
  const withRules = async (rules: Partial<Record<'listRule' | 'viewRule', string | null>>) => {
    await app.collections.update('posts', rules)
    return coll('posts')
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-rule-check-'))
    app = await createApp({ dataDir: dir, logger: silentLogger })
    const usersId = coll('users').id
    for (const name of ['alice', 'bob', 'carol']) {
      const created = await app.records.create(
        coll('users'),
        {
          email: `${name}@example.com`,
          password: 'password123',
          passwordConfirm: 'password123',
          name,
        },
        su(),
      )
      users[name] = (await app.records.findById(coll('users'), String(created.id)))!
    }
    const teams = await app.collections.create({
      name: 'teams',
      listRule: '',
      schema: [
        { name: 'name', type: 'text' },
        { name: 'members', type: 'relation', options: { collectionId: usersId, maxSelect: 10 } },
      ],
    })
    await app.collections.create({
      name: 'posts',
      listRule: '',
      viewRule: '',
      schema: [
        { name: 'title', type: 'text' },
        { name: 'owner', type: 'relation', options: { collectionId: usersId, maxSelect: 1 } },
        { name: 'team', type: 'relation', options: { collectionId: teams.id, maxSelect: 1 } },
        { name: 'views', type: 'number' },
        { name: 'published', type: 'bool' },
        { name: 'tags', type: 'select', options: { values: ['a', 'b', 'c'], maxSelect: 3 } },
        { name: 'meta', type: 'json' },
        { name: 'secret', type: 'text', hidden: true },
      ],
    })
    await app.collections.create({
      name: 'comments',
      listRule: '',
      schema: [
        { name: 'text', type: 'text' },
        {
          name: 'post',
          type: 'relation',
          options: { collectionId: coll('posts').id, maxSelect: 1, cascadeDelete: true },
        },
        { name: 'author', type: 'relation', options: { collectionId: usersId, maxSelect: 1 } },
      ],
    })
    const red = await app.records.create(
      coll('teams'),
      { name: 'red', members: [users.alice!.id, users.bob!.id] },
      su(),
    )
    const mk = async (key: string, body: Record<string, unknown>) => {
      const out = await app.records.create(coll('posts'), body, su())
      posts[key] = (await app.records.findById(coll('posts'), String(out.id)))!
    }
    await mk('p1', {
      title: 'Hello',
      owner: users.alice!.id,
      team: red.id,
      views: 7,
      published: true,
      tags: ['a', 'b'],
      meta: { level: 2, name: 'x' },
      secret: 's1',
    })
    await mk('p2', { title: 'World', owner: users.bob!.id, views: 0, tags: ['c'], meta: null })
    await mk('p3', { title: '', owner: users.carol!.id, views: 12.5, published: true })
    await app.records.create(
      coll('comments'),
      { text: 'nice', post: posts.p2!.id, author: users.carol!.id },
      su(),
    )
  })
  afterAll(async () => {
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  })

  // Each filter must select the same records from values as from the table.
  const parity = [
    "title = 'Hello'",
    "title != ''",
    "title = ''",
    "title ~ 'orl'",
    'views > 5',
    "views = '7'",
    'views = 7.0',
    "views >= '12'",
    'published = true',
    'published = false',
    "tags ?= 'b'",
    "tags = 'c'",
    'tags:length = 2',
    "tags:each != 'c'",
    'meta.level = 2',
    "meta.name = 'x'",
    'meta = null',
    "owner.name = 'alice'",
    "owner.email ~ 'bob'",
    "team.members.id ?= owner && team.name = 'red'",
    "comments_via_post.text = 'nice'",
    "@collection.teams.name ?= 'red' && owner.name != 'carol'",
    "id != '' && created != '' && updated <= @now",
    "secret = 's1'",
  ]
  it.each(parity)('matches like the table for %s', async (filter) => {
    const posts = coll('posts')
    const listed = await app.records.list(posts, { filter, perPage: 100 }, su())
    const expected = new Set(listed.items.map((r) => String(r.id)))
    const rows = await app.records.list(posts, { perPage: 100 }, su())
    expect(rows.items.length).toBe(3)
    for (const item of rows.items) {
      const record = (await app.records.findById(posts, String(item.id)))!
      expect(
        await recordMatches(app, posts, record, 'listRule', su(), filter),
        `${filter} on ${String(item.title)}`,
      ).toBe(expected.has(String(item.id)))
    }
  })

  it('admits only superusers under a null rule, everyone under ""', async () => {
    const c = await withRules({ listRule: null, viewRule: '' })
    expect(await recordMatches(app, c, posts.p1!, 'listRule', su())).toBe(true)
    expect(await recordMatches(app, c, posts.p1!, 'listRule', as('alice'))).toBe(false)
    expect(await recordMatches(app, c, posts.p1!, 'listRule', guest())).toBe(false)
    expect(await recordMatches(app, c, posts.p1!, 'viewRule', guest())).toBe(true)
    expect(await recordMatches(app, c, posts.p1!, 'viewRule', as('bob'))).toBe(true)
  })

  it('evaluates an owner rule against the auth record', async () => {
    const c = await withRules({ listRule: 'owner = @request.auth.id', viewRule: null })
    const table: [string, string, boolean][] = [
      ['alice', 'p1', true],
      ['alice', 'p2', false],
      ['bob', 'p2', true],
      ['bob', 'p1', false],
      ['carol', 'p3', true],
    ]
    for (const [who, post, expected] of table) {
      expect(await recordMatches(app, c, posts[post]!, 'listRule', as(who)), `${who} ${post}`).toBe(
        expected,
      )
    }
    expect(await recordMatches(app, c, posts.p1!, 'listRule', guest())).toBe(false)
    expect(await recordMatches(app, c, posts.p2!, 'listRule', su())).toBe(true)
    expect(await recordMatches(app, c, posts.p1!, 'viewRule', as('alice'))).toBe(false)
  })

  it('follows relation paths into other tables (team membership)', async () => {
    const c = await withRules({ listRule: 'team.members.id ?= @request.auth.id' })
    expect(await recordMatches(app, c, posts.p1!, 'listRule', as('alice'))).toBe(true)
    expect(await recordMatches(app, c, posts.p1!, 'listRule', as('bob'))).toBe(true)
    expect(await recordMatches(app, c, posts.p1!, 'listRule', as('carol'))).toBe(false)
    expect(await recordMatches(app, c, posts.p2!, 'listRule', as('alice'))).toBe(false)
  })

  it('reads back-relations and @request values', async () => {
    const c = await withRules({
      listRule: 'comments_via_post.author ?= @request.auth.id || @request.headers.x_key = "k1"',
    })
    expect(await recordMatches(app, c, posts.p2!, 'listRule', as('carol'))).toBe(true)
    expect(await recordMatches(app, c, posts.p2!, 'listRule', as('alice'))).toBe(false)
    const keyed = guest({ headers: { x_key: 'k1' } })
    expect(await recordMatches(app, c, posts.p1!, 'listRule', keyed)).toBe(true)
    const ctx = await withRules({ listRule: '@request.context = "realtime" && views > 1' })
    expect(await recordMatches(app, ctx, posts.p1!, 'listRule', guest())).toBe(true)
    expect(
      await recordMatches(app, ctx, posts.p1!, 'listRule', internalRequest({ context: 'default' })),
    ).toBe(false)
  })

  it('ANDs the client filter with the rule, restricted for non-superusers', async () => {
    const c = await withRules({ listRule: 'owner = @request.auth.id' })
    expect(await recordMatches(app, c, posts.p1!, 'listRule', as('alice'), 'views > 5')).toBe(true)
    expect(await recordMatches(app, c, posts.p1!, 'listRule', as('alice'), 'views > 50')).toBe(
      false,
    )
    expect(await recordMatches(app, c, posts.p2!, 'listRule', as('alice'), 'views >= 0')).toBe(
      false,
    )
    // NB: a client filter may not name hidden fields, @request or @collection.
    const refused = async (filter: string, status: number) => {
      const err = await recordMatches(app, c, posts.p1!, 'listRule', as('alice'), filter).catch(
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(ApiError)
      expect((err as ApiError).status).toBe(status)
    }
    await refused("secret = 's1'", 400)
    await refused("@request.auth.id != ''", 403)
    await refused("@collection.teams.name = 'red'", 403)
    await refused('views >', 400)
    expect(await recordMatches(app, c, posts.p1!, 'listRule', su(), "secret = 's1'")).toBe(true)
  })

  it('matches a deleted record by its data, relation paths included', async () => {
    const c = await withRules({ listRule: "owner = @request.auth.id && owner.name = 'bob'" })
    const gone = posts.p2!
    await app.records.delete(c, String(gone.id), su())
    expect(await app.records.findById(c, String(gone.id))).toBeUndefined()
    expect(await recordMatches(app, c, gone, 'listRule', as('bob'))).toBe(true)
    expect(await recordMatches(app, c, gone, 'listRule', as('alice'))).toBe(false)
    expect(await recordMatches(app, c, gone, 'listRule', as('bob'), 'views = 0')).toBe(true)
    expect(await recordMatches(app, c, gone, 'listRule', as('bob'), "title = 'Other'")).toBe(false)
  })
})
