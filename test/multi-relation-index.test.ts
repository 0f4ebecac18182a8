/**
 * Junction tables of multi-valued relations and selects (`_mv_<collectionId>_<fieldId>`), on
 * SQLite and on PostgreSQL (`SVC_TEST_PG_URL`, started by test/global-setup.ts): their rows stay
 * exactly the distinct non-NULL `json_each(<field>)` values through every write path (record
 * service, batch, SQL console) and schema change (renames, maxSelect 3 → 1 → 3, field and
 * collection deletes), a restart gives them to a database made without them, and `?=` filters
 * read through them answer exactly what the `json_each` SQL answers, over random data with
 * duplicates, empty lists, NULL and scalars.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemRequest } from '../src/core/auth/superusers.js'
import type { App } from '../src/core/app.js'
import type { Collection } from '../src/core/collections/model.js'
import { ruleContext, selectFrom } from '../src/core/records/query.js'
import { internalRequest, type RequestInfo } from '../src/core/request-info.js'
import { compileFilter } from '../src/core/rules/index.js'
import { junctionTable } from '../src/store/schema.js'
import { ident, param, raw, sql } from '../src/store/sql.js'
import { restoreDbEnv, startOn, testPgUrl } from './helpers/engines.js'
import { useFilterFuzz } from './helpers/filter-fuzz-server.js'
import { fuzzCorpora } from './helpers/fuzz.js'
import type { TestServer } from './helpers/server.js'

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('multi-valued field junctions on %s', (_engine, pg) => {
  let t: TestServer
  const app = (): App => t.server.app
  const coll = (name: string): Collection => app().collections.get(name)
  const su = () => systemRequest(app())
  const users: string[] = []

  /** The junction rows of `collection.field`, as sorted `record value` strings. */
  async function junctionRows(collection: string, field: string): Promise<string[]> {
    const c = coll(collection)
    const f = c.fields.find((x) => x.name === field)!
    const table = ident(junctionTable(c.id, f.id))
    const rows = await app()
      .dbFor(c)
      .all<{ record: string; value: unknown }>(sql`SELECT record, value FROM ${table}`)
    return rows.map((r) => `${r.record} ${JSON.stringify(r.value)}`).sort()
  }

  /** What the junction must hold: the distinct non-NULL values of `json_each(field)` per record. */
  async function expectedRows(collection: string, field: string): Promise<string[]> {
    const c = coll(collection)
    const db = app().dbFor(c)
    const each = db.dialect.jsonEach(sql`t.${ident(field)}`, 'e')
    const rows = await db.all<{ record: string; value: unknown }>(
      sql`SELECT DISTINCT t.id AS record, ${each.value} AS value FROM ${ident(c.name)} AS t CROSS JOIN ${each.from} WHERE ${each.value} IS NOT NULL`,
    )
    return rows.map((r) => `${r.record} ${JSON.stringify(r.value)}`).sort()
  }

  async function expectExact(collection: string, field: string): Promise<void> {
    const rows = await junctionRows(collection, field)
    expect(rows).toEqual(await expectedRows(collection, field))
  }

  async function tableExists(name: string): Promise<boolean> {
    return app().schema.exists(app().db, name)
  }

  beforeAll(async () => {
    t = await startOn(pg)
    const batch = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { batch: { enabled: true } },
    })
    expect(batch.status).toBe(200)
    for (let i = 0; i < 6; i++) {
      const created = await app().records.create(
        coll('users'),
        {
          email: `u${i}@example.com`,
          password: 'password123',
          passwordConfirm: 'password123',
          name: `user ${i % 3}`,
        },
        su(),
      )
      users.push(String(created.id))
    }
    // NB: junctions are made for the multi-valued fields the collection's rules compare with `?`.
    await app().collections.create({
      name: 'posts',
      listRule: "editors.id ?= @request.auth.id || labels:each ?= 'zz'",
      schema: [
        { name: 'title', type: 'text' },
        {
          name: 'editors',
          type: 'relation',
          options: { collectionId: coll('users').id, maxSelect: 5 },
        },
        { name: 'labels', type: 'select', options: { values: ['a', 'b', 'c'], maxSelect: 3 } },
      ],
    })
  })
  afterAll(async () => {
    await t?.close()
  })

  it('keeps the junction exact through the record service, batch and the SQL console', async () => {
    const posts = coll('posts')
    const one = await app().records.create(
      posts,
      { title: 'one', editors: [users[0], users[1]], labels: ['a'] },
      su(),
    )
    const oneId = String(one.id)
    await app().records.create(posts, { title: 'none' }, su())
    await expectExact('posts', 'editors')
    await expectExact('posts', 'labels')
    expect(await junctionRows('posts', 'editors')).toContain(`${oneId} ${JSON.stringify(users[1])}`)

    await app().records.update(posts, oneId, { editors: [users[2]], labels: [] }, su())
    await expectExact('posts', 'editors')
    await expectExact('posts', 'labels')

    const batch = await t.api('POST', '/api/batch', {
      token: t.suToken,
      body: {
        requests: [
          {
            method: 'POST',
            url: '/api/collections/posts/records',
            body: { title: 'b1', editors: [users[3], users[4]], labels: ['b', 'c'] },
          },
          {
            method: 'PATCH',
            url: `/api/collections/posts/records/${oneId}`,
            body: { editors: [users[5], users[0]] },
          },
        ],
      },
    })
    expect(batch.status).toBe(200)
    await expectExact('posts', 'editors')
    await expectExact('posts', 'labels')

    // Raw SQL: duplicates, NULL, an empty list, a scalar, and an id change.
    const console = async (text: string) => {
      const res = await t.api('POST', '/api/sql', {
        token: t.suToken,
        body: { sql: text, write: true },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
    }
    const dup = JSON.stringify([users[1], users[1], users[2]])
    await console(`UPDATE posts SET editors = '${dup}' WHERE title = 'b1'`)
    await console(`UPDATE posts SET labels = '[]' WHERE title = 'b1'`)
    await console(`UPDATE posts SET editors = '"${users[3]}"' WHERE title = 'none'`)
    await expectExact('posts', 'editors')
    await console(`UPDATE posts SET editors = NULL WHERE title = 'none'`)
    await console(`UPDATE posts SET id = 'renamedid000001' WHERE id = '${oneId}'`)
    await expectExact('posts', 'editors')
    await expectExact('posts', 'labels')
    expect(
      (await junctionRows('posts', 'editors')).some((r) => r.startsWith('renamedid000001 ')),
    ).toBe(true)

    // The console refuses to drop or alter a junction, as it does a collection's table.
    const c = coll('posts')
    const junction = junctionTable(c.id, c.fields.find((f) => f.name === 'editors')!.id)
    const drop = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: `DROP TABLE "${junction}"`, write: true },
    })
    expect(drop.status).toBe(400)
    expect(await tableExists(junction)).toBe(true)

    await console(`DELETE FROM posts WHERE title = 'b1'`)
    await app().records.delete(posts, 'renamedid000001', su())
    await expectExact('posts', 'editors')
    await expectExact('posts', 'labels')
    expect(await junctionRows('posts', 'editors')).toEqual([]) // 'none' has no editors
  })

  it('follows renames, maxSelect changes and deletes', async () => {
    const c0 = coll('posts')
    const editors = c0.fields.find((f) => f.name === 'editors')!
    const labels = c0.fields.find((f) => f.name === 'labels')!
    await app().records.create(
      c0,
      { title: 'r', editors: [users[0], users[2]], labels: ['c'] },
      su(),
    )
    const fields = (map: (f: Collection['fields'][number]) => object) =>
      coll(c0.id).fields.map((f) => ({ ...f, ...map(f) }))

    await app().collections.update('posts', {
      name: 'articles',
      listRule: "writers:each ?= @request.auth.id || labels:each ?= 'zz'",
      fields: fields((f) => (f.id === editors.id ? { name: 'writers' } : {})),
    })
    await expectExact('articles', 'writers')
    await expectExact('articles', 'labels')
    await app().records.create(coll('articles'), { writers: [users[4]] }, su())
    await expectExact('articles', 'writers')
    const list = await app().records.list(
      coll('articles'),
      { filter: `writers.id ?= '${users[4]}'` },
      su(),
    )
    expect(list.items).toHaveLength(1)

    const setMax = (n: number) =>
      app().collections.update('articles', {
        listRule: `writers:each ?= @request.auth.id || labels${n > 1 ? ':each' : ''} ?= 'zz'`,
        fields: fields((f) =>
          f.id === labels.id ? { options: { ...f.options, maxSelect: n } } : {},
        ),
      })
    const junction = junctionTable(c0.id, labels.id)
    await setMax(1)
    expect(await tableExists(junction)).toBe(false)
    await app().records.create(coll('articles'), { labels: 'b' }, su())
    await setMax(3)
    expect(await tableExists(junction)).toBe(true)
    await expectExact('articles', 'labels')
    expect(await junctionRows('articles', 'labels')).toContainEqual(expect.stringMatching(/ "b"$/))

    await app().collections.update('articles', {
      listRule: 'writers:each ?= @request.auth.id',
      fields: coll('articles').fields.filter((f) => f.id !== labels.id),
    })
    expect(await tableExists(junction)).toBe(false)
    const writers = junctionTable(c0.id, editors.id)
    expect(await tableExists(writers)).toBe(true)
    await app().collections.delete('articles')
    expect(await tableExists(writers)).toBe(false)
  })

  it('exists while a rule of the collection compares the field with an any-of operator', async () => {
    const c = await app().collections.create({
      name: 'plain',
      schema: [{ name: 'tags', type: 'select', options: { values: ['x', 'y'], maxSelect: 2 } }],
    })
    const junction = junctionTable(c.id, c.fields.find((f) => f.name === 'tags')!.id)
    expect(await tableExists(junction)).toBe(false)
    await app().records.create(c, { tags: ['x', 'y'] }, su())
    await app().collections.update('plain', { listRule: "tags:each ?= 'x'" })
    expect(await tableExists(junction)).toBe(true)
    await expectExact('plain', 'tags')
    expect(await junctionRows('plain', 'tags')).toHaveLength(2)
    await app().collections.update('plain', { listRule: "tags:each = 'x'" })
    expect(await tableExists(junction)).toBe(false)
    await app().collections.delete('plain')
  })

  it('gives junctions to a database made without them at start', async () => {
    const c = await app().collections.create({
      name: 'old',
      viewRule: "tags:each ?= 'x'",
      schema: [{ name: 'tags', type: 'select', options: { values: ['x', 'y'], maxSelect: 2 } }],
    })
    await app().records.create(c, { tags: ['x', 'y'] }, su())
    await app().records.create(c, { tags: [] }, su())
    await app().runInTransaction((tx) => tx.schema.dropJunctions(tx.dbFor(c), c.name, true))
    const junction = junctionTable(c.id, c.fields.find((f) => f.name === 'tags')!.id)
    expect(await tableExists(junction)).toBe(false)
    // NB: on PostgreSQL the restarted app must find the same database and schema.
    const saved = [process.env.SVC_DATABASE_URL, process.env.SVC_DATABASE_SCHEMA]
    if (pg) {
      process.env.SVC_DATABASE_URL = testPgUrl()
      process.env.SVC_DATABASE_SCHEMA = '@dir'
    }
    try {
      await t.server.restart()
    } finally {
      if (pg) restoreDbEnv(saved)
    }
    expect(app().store.dialect.name).toBe(pg ? 'postgres' : 'sqlite')
    expect(await tableExists(junction)).toBe(true)
    await expectExact('old', 'tags')
    await app().records.create(coll('old'), { tags: ['y'] }, su())
    await expectExact('old', 'tags')
  })

  describe('filters through the junction answer as through json_each', () => {
    const ids: string[] = []
    let rng = 7
    const random = (n: number) => {
      rng = (rng * 1103515245 + 12345) % 2147483648
      return rng % n
    }

    beforeAll(async () => {
      await app().collections.update('users', { listRule: "name != 'user 2'" })
      const c = await app().collections.create({
        name: 'docs',
        listRule: "editors.id ?= @request.auth.id || tags:each ?= 'zz' || id != ''",
        schema: [
          { name: 'title', type: 'text' },
          {
            name: 'editors',
            type: 'relation',
            options: { collectionId: coll('users').id, maxSelect: 5 },
          },
          {
            name: 'tags',
            type: 'select',
            options: { values: ['a', 'b', 'c', 'd'], maxSelect: 4 },
          },
        ],
      })
      for (let i = 0; i < 60; i++) {
        const created = await app().records.create(c, { title: `t${random(4)}` }, su())
        ids.push(String(created.id))
        const pick = (pool: string[]) => {
          const n = random(5)
          return Array.from({ length: n }, () => pool[random(pool.length)]!)
        }
        // Duplicates, empty lists, NULL, a scalar and a dangling id, written as raw JSON.
        const kind = random(10)
        const editors =
          kind === 0
            ? null
            : kind === 1
              ? JSON.stringify(users[random(6)])
              : JSON.stringify([...pick(users), ...(kind === 2 ? ['missing00000000'] : [])])
        const tags = kind === 3 ? null : JSON.stringify(pick(['a', 'b', 'c', 'd', '']))
        const db = app().dbFor(c)
        const json = (v: string | null) =>
          v === null ? raw('NULL') : db.dialect.castColumn(param(v), 'json')
        await db.run(
          sql`UPDATE docs SET editors = ${json(editors)}, tags = ${json(tags)} WHERE id = ${ids[i]!}`,
        )
      }
    })

    const filters = (u: string) => [
      `editors:each ?= '${u}'`,
      `editors.id ?= '${u}'`,
      `editors.name ?= 'user 1'`,
      `editors.name ?~ 'user'`,
      `editors:each ?= ''`,
      `editors:each ?!= '${u}'`,
      `editors.id ?= ''`,
      `editors.id ?!= '${u}'`,
      `editors:each ?= null`,
      `editors:each ?> '${u}'`,
      `editors:each ?<= '${u}'`,
      `editors:each ?!~ 'u0'`,
      `editors.name ?!~ 'user 1'`,
      `editors.email ?= 'u1@example.com'`,
      `tags:each ?= 0`,
      `tags:each ?> 1`,
      `tags:each ?= true`,
      `tags:each ?= 'a'`,
      `tags:each ?= ''`,
      `tags:each ?!= 'b'`,
      `tags:each ?~ 'c'`,
      `tags:each ?= 'a' && tags:each ?= 'b'`,
      `tags:each ?= 'a' || title = 't1'`,
      `(tags:each ?= 'a' && editors.id ?= '${u}') || (title = 't2' && tags:each ?= 'd')`,
      `tags:each ?= 'a' && editors.name ?= 'user 0' && title != 't3'`,
      `editors.id ?= '${u}' && editors.name ?= 'user 1'`,
      `editors:each ?= title`,
      `tags:length > 1 && tags:each ?= 'c'`,
    ]

    /** The ids a compiled filter selects, with the junction rewrite on or off. */
    async function select(text: string, info: RequestInfo, restricted: boolean, on: boolean) {
      const c = coll('docs')
      const ctx = ruleContext(app(), c, info, restricted, on)
      const where = compileFilter(text, ctx)
      const compiled = app().dbFor(c).dialect.compile(where).sql
      const rows = await app()
        .dbFor(c)
        .all<{ id: string }>(selectFrom(c, [where], sql`${ident('__r')}.id AS id`))
      return { ids: rows.map((r) => r.id).sort(), junction: compiled.includes('_mv_') }
    }

    it('for superusers and for restricted filters (joined listRules)', async () => {
      const guest = internalRequest({})
      const user = internalRequest({
        auth: {
          record: (await app().records.findById(coll('users'), users[0]!))!,
          collection: coll('users'),
        },
      })
      let rewritten = 0
      for (const u of users.slice(0, 3)) {
        for (const text of filters(u)) {
          for (const [info, restricted] of [
            [su(), false],
            [user, true],
            [guest, true],
          ] as const) {
            const on = await select(text, info, restricted, true)
            const off = await select(text, info, restricted, false)
            expect(off.junction).toBe(false)
            expect(on.ids, `${text} (restricted: ${restricted})`).toEqual(off.ids)
            if (on.junction) rewritten++
          }
        }
      }
      expect(rewritten).toBeGreaterThan(20)
    })

    it('only where the join is the comparison’s alone', async () => {
      const ctx = ruleContext(app(), coll('docs'), su(), false, true)
      const junctions = (text: string) =>
        (
          app().dbFor(coll('docs')).dialect.compile(compileFilter(text, ctx)).sql.match(/_mv_/g) ??
          []
        ).length
      expect(junctions(`tags:each ?= 'a'`)).toBe(1)
      expect(junctions(`editors.id ?= 'x' || tags:each ?= 'a'`)).toBe(2)
      expect(junctions(`tags:each ?= 'a' && tags:each ?= 'b'`)).toBe(0)
      expect(junctions(`editors.id ?= 'x' && editors.name ?= 'y'`)).toBe(0)
      expect(junctions(`editors:each ?= 'x' && editors.name ?= 'y'`)).toBe(0)
      expect(junctions(`tags:each = 'a'`)).toBe(0)
      // A NULL item (empty list, missing related record) could match: not rewritten.
      expect(junctions(`tags:each ?= ''`)).toBe(0)
      expect(junctions(`tags:each ?= null`)).toBe(0)
      expect(junctions(`tags:each ?!= 'a'`)).toBe(0)
      expect(junctions(`editors:each ?= title`)).toBe(0)
      expect(junctions(`tags:each ?~ 'a'`)).toBe(1)
      expect(junctions(`tags:each ?= editors:each`)).toBe(0)
      const user = internalRequest({
        auth: {
          record: (await app().records.findById(coll('users'), users[0]!))!,
          collection: coll('users'),
        },
      })
      const asUser = ruleContext(app(), coll('docs'), user, false, true)
      const compiled = compileFilter('editors.id ?= @request.auth.id', asUser)
      expect(app().dbFor(coll('docs')).dialect.compile(compiled).sql).toContain('_mv_')
      const off = ruleContext(app(), coll('docs'), su(), false, false)
      expect(
        app().dbFor(coll('docs')).dialect.compile(compileFilter(`tags:each ?= 'a'`, off)).sql,
      ).not.toContain('_mv_')
    })

    it('in create and update rules, checked in the writing transaction', async () => {
      await app().collections.update('docs', {
        createRule: 'editors.id ?= @request.auth.id',
        updateRule: 'editors:each ?= @request.auth.id',
      })
      const login = await t.api('POST', '/api/collections/users/auth-with-password', {
        body: { identity: 'u1@example.com', password: 'password123' },
      })
      const token = login.body.token as string
      const create = (editors: string[]) =>
        t.api('POST', '/api/collections/docs/records', { token, body: { title: 'c', editors } })
      const mine = await create([users[1]!, users[2]!])
      expect(mine.status).toBe(200)
      expect((await create([users[2]!])).status).toBe(400)
      const patch = (editors: string[]) =>
        t.api('PATCH', `/api/collections/docs/records/${mine.body.id}`, {
          token,
          body: { editors },
        })
      expect((await patch([users[3]!, users[1]!])).status).toBe(200)
      expect((await patch([users[3]!])).status).toBe(200) // the rule reads the stored row
      expect((await patch([users[1]!])).status).toBe(404) // no longer an editor
      await app().collections.update('docs', { createRule: '', updateRule: '' })
    })

    it('in list rules read by the records API', async () => {
      await app().collections.update('docs', { listRule: 'editors.id ?= @request.auth.id' })
      const login = await t.api('POST', '/api/collections/users/auth-with-password', {
        body: { identity: 'u0@example.com', password: 'password123' },
      })
      expect(login.status).toBe(200)
      const res = await t.api('GET', '/api/collections/docs/records?perPage=500&sort=-created', {
        token: login.body.token,
      })
      expect(res.status).toBe(200)
      const expected = await select(`editors.id ?= '${users[0]}'`, su(), false, false)
      expect(res.body.items.map((r: { id: string }) => r.id).sort()).toEqual(expected.ids)
      expect(res.body.totalItems).toBe(expected.ids.length)
    })
  })
})

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('the filter fuzz corpus through junctions on %s', (_engine, pg) => {
  const fuzz = useFilterFuzz({ pg })
  const { grammaticalCorpus } = fuzzCorpora()

  /** The ids `text` selects in `fz` (or its error), with the junction rewrite on or off. */
  async function run(text: string, who: 'su' | 'guest', on: boolean) {
    const app = fuzz.t.server.app
    const info = fuzz.infos[who]
    const ctx = ruleContext(app, fuzz.fz, info, who !== 'su', on)
    try {
      const where = compileFilter(text, ctx)
      const db = app.dbFor(fuzz.fz)
      const rows = await db.all<{ id: string }>(
        selectFrom(fuzz.fz, [where], sql`${ident('__r')}.id AS id`),
      )
      const junction = db.dialect.compile(where).sql.includes('_mv_')
      return { ids: rows.map((r) => r.id).sort(), junction }
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e), junction: false }
    }
  }

  it('answers every filter on tags and refs as without it', async () => {
    let rewritten = 0
    const differences: string[] = []
    for (const text of grammaticalCorpus.filter((f) => /tags|refs/.test(f))) {
      for (const who of ['su', 'guest'] as const) {
        const on = await run(text, who, true)
        const off = await run(text, who, false)
        if (on.junction) rewritten++
        const same =
          JSON.stringify({ ...on, junction: 0 }) === JSON.stringify({ ...off, junction: 0 })
        if (!same && differences.length < 20) differences.push(`${who}: ${text}`)
      }
    }
    expect(differences).toEqual([])
    expect(rewritten).toBeGreaterThan(50)
  })
})
