/**
 * The SQL console (SPEC §4.14, issue 13 part 6), black box: input checks, auth, reads
 * (truncation at 500 rows, values JSON cannot carry), read-only enforcement beyond the prefix
 * check, writes, what a write may not change (the collection registry stays consistent), driver
 * errors verbatim, and what the request log keeps. Cancellation at 10 s is in
 * sql-console-timeout.test.ts.
 */
import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from '../src/store/sql.js'
import { startServer, SU_EMAIL, SU_PASSWORD, type TestServer } from './helpers/server.js'

describe('SQL console', () => {
  let t: TestServer
  let userToken: string
  const run = (body: unknown, token: string | null = t.suToken) =>
    t.api('POST', '/api/sql', { token, body })

  beforeAll(async () => {
    t = await startServer()
    const posts = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'posts',
        type: 'base',
        listRule: '',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'n', type: 'number' },
        ],
      },
    })
    expect(posts.status).toBe(200)
    // 600 rows in one statement through the console itself.
    const seeded = await run({
      sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 600) INSERT INTO posts (id, title, n, created, updated) SELECT printf('post%011d', x), 'title ' || x, x, '2024-01-01 00:00:00.000Z', '2024-01-01 00:00:00.000Z' FROM c",
      write: true,
    })
    expect(seeded.body).toEqual({ rowsAffected: 600 })
    await t.api('POST', '/api/collections/users/records', {
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    userToken = login.body.token
  })
  afterAll(() => t.close())

  it('answers the pocketbase SDK through pb.send, errors as ClientResponseError', async () => {
    const pb = new PocketBase(t.url)
    await pb.collection('_superusers').authWithPassword(SU_EMAIL, SU_PASSWORD)
    const res = await pb.send('/api/sql', {
      method: 'POST',
      body: { sql: 'SELECT count(*) AS n FROM posts' },
    })
    expect(res).toEqual({ columns: ['n'], rows: [{ n: 600 }], truncated: false })
    await expect(
      pb.send('/api/sql', { method: 'POST', body: { sql: 'SELECT * FROM nope' } }),
    ).rejects.toMatchObject({
      status: 400,
      response: { message: 'SQL error: no such table: nope.' },
    })
  })

  it('is for superusers only: 401 without a token, 403 for a user', async () => {
    expect((await run({ sql: 'SELECT 1' }, null)).status).toBe(401)
    expect((await run({ sql: 'SELECT 1' }, userToken)).status).toBe(403)
  })

  it('checks its input: sql required and a string, write a boolean', async () => {
    const cases: [unknown, Record<string, string>][] = [
      [{ sql: '' }, { sql: 'validation_required' }],
      [{ sql: '   \n ' }, { sql: 'validation_required' }],
      [{ sql: 42 }, { sql: 'validation_invalid_value' }],
      [{ sql: 'SELECT 1', write: 'yes' }, { write: 'validation_invalid_value' }],
      [
        { sql: ['SELECT 1'], write: 1 },
        { sql: 'validation_invalid_value', write: 'validation_invalid_value' },
      ],
      [{ sql: `SELECT '${'x'.repeat(100_001)}'` }, { sql: 'validation_length_too_long' }],
    ]
    for (const [body, codes] of cases) {
      const res = await run(body)
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(res.body.message).toBe('An error occurred while validating the submitted data.')
      const got = Object.fromEntries(
        Object.entries(res.body.data).map(([k, v]) => [k, (v as { code: string }).code]),
      )
      expect(got).toEqual(codes)
    }
    expect((await run({ sql: 'SELECT 1', write: 'nope' })).body.data.write.message).toBe(
      'Must be a boolean.',
    )
  })

  it('reads: {columns, rows, truncated}, cut at 500 rows', async () => {
    const res = await run({ sql: 'SELECT id, title, n FROM posts ORDER BY n' })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(['columns', 'rows', 'truncated'])
    expect(res.body.columns).toEqual(['id', 'title', 'n'])
    expect(res.body.rows).toHaveLength(500)
    expect(res.body.truncated).toBe(true)
    expect(res.body.rows[0]).toEqual({ id: 'post00000000001', title: 'title 1', n: 1 })
    expect(res.body.rows[499].n).toBe(500)

    const exact = await run({ sql: 'SELECT n FROM posts WHERE n <= 500' })
    expect(exact.body.rows).toHaveLength(500)
    expect(exact.body.truncated).toBe(false)
    const few = await run({ sql: '  with x AS (SELECT 2 AS two) select two, 1 + 1 AS sum FROM x' })
    expect(few.body).toEqual({
      columns: ['two', 'sum'],
      rows: [{ two: 2, sum: 2 }],
      truncated: false,
    })
    const none = await run({ sql: 'SELECT * FROM posts WHERE n < 0' })
    expect(none.body).toEqual({ columns: expect.any(Array), rows: [], truncated: false })
    expect(none.body.columns).toContain('title')
  })

  it('reads a huge result without reading it whole (a cross join of 360 000 000 rows)', async () => {
    const started = Date.now()
    const res = await run({ sql: 'SELECT a.n, b.n, c.n FROM posts a, posts b, posts c' })
    expect(res.status).toBe(200)
    expect(res.body.rows).toHaveLength(500)
    expect(res.body.truncated).toBe(true)
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('cuts rows past 8 MiB of values, without converting a huge value', async () => {
    const big = await run({ sql: 'SELECT randomblob(50000000) AS b' })
    expect(big.status).toBe(200)
    expect(big.body).toEqual({ columns: ['b'], rows: [], truncated: true })
    // 1 MB blobs are 1.33 MB in base64: six fit in 8 MiB.
    const some = await run({
      sql: 'SELECT n, randomblob(1000000) AS b FROM posts WHERE n <= 20 ORDER BY n',
    })
    expect(some.body.rows.map((r: { n: number }) => r.n)).toEqual([1, 2, 3, 4, 5, 6])
    expect(some.body.truncated).toBe(true)
    expect(Buffer.from(some.body.rows[0].b, 'base64')).toHaveLength(1_000_000)
  })

  it('converts what JSON cannot carry: BLOBs to base64, big integers and infinities to text', async () => {
    const res = await run({
      sql: "SELECT x'00ff10' AS blob, 9007199254740993 AS big, -9007199254740993 AS small, 9007199254740991 AS safe, 1e999 AS inf, -1e999 AS ninf, 0.5 AS real, NULL AS empty, 'ü' AS text, 1 AS a, 2 AS a",
    })
    expect(res.body.message).toBeUndefined()
    expect(res.status).toBe(200)
    expect(res.body.columns).toEqual([
      'blob',
      'big',
      'small',
      'safe',
      'inf',
      'ninf',
      'real',
      'empty',
      'text',
      'a',
      'a:2',
    ])
    expect(res.body.rows).toEqual([
      {
        blob: 'AP8Q',
        big: '9007199254740993',
        small: '-9007199254740993',
        safe: 9007199254740991,
        inf: 'Infinity',
        ninf: '-Infinity',
        real: 0.5,
        empty: null,
        text: 'ü',
        a: 1,
        'a:2': 2,
      },
    ])
  })

  it('refuses a read that does not start with SELECT or WITH (rule 1)', async () => {
    for (const text of [
      'DELETE FROM posts',
      'PRAGMA table_info(posts)',
      '-- note\nSELECT 1',
      'UPDATE posts SET n = 0',
    ]) {
      const res = await run({ sql: text })
      expect(res.status, text).toBe(400)
      expect(res.body.message).toBe(
        'With write false, the statement must start with SELECT or WITH (set write true to change data).',
      )
    }
    expect((await run({ sql: 'DELETE FROM posts', write: false })).status).toBe(400)
  })

  it('runs reads on a read-only connection: a WITH … DELETE passes the prefix check and is refused', async () => {
    for (const text of [
      'WITH x AS (SELECT 1) DELETE FROM posts',
      'WITH x AS (SELECT 1) UPDATE posts SET n = 0',
      "WITH x AS (SELECT 1) INSERT INTO posts (id, title) VALUES ('sneaky000000001', 'x')",
    ]) {
      const res = await run({ sql: text })
      expect(res.status, text).toBe(400)
      expect(res.body.message).toBe('SQL error: attempt to write a readonly database.')
    }
    const count = await t.server.app.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM posts`)
    expect(count?.n).toBe(600)
    const min = await t.server.app.db.get<{ n: number }>(sql`SELECT min(n) AS n FROM posts`)
    expect(min?.n).toBe(1)
  })

  it('returns driver errors verbatim in a 400 (rule 3)', async () => {
    const cases: [string, boolean, string][] = [
      ['SELECT * FROM nope', false, 'no such table: nope'],
      ['SELECT nope FROM posts', false, 'no such column: nope'],
      ['SELECT FROM', false, 'near "FROM": syntax error'],
      ['SELECT 1; SELECT 2', false, 'The supplied SQL string contains more than one statement'],
      ['DELETE FROM nope', true, 'no such table: nope'],
      [
        "INSERT INTO posts (id) VALUES ('post00000000001')",
        true,
        'UNIQUE constraint failed: posts.id',
      ],
      ['BEGIN', true, 'cannot start a transaction within a transaction'],
      ['VACUUM', true, 'cannot VACUUM from within a transaction'],
    ]
    for (const [text, write, driver] of cases) {
      const res = await run({ sql: text, write })
      expect(res.status, text).toBe(400)
      expect(res.body.message, text).toContain(driver)
      expect(res.body.message).toBe(`SQL error: ${driver}.`)
    }
  })

  it('writes: {rowsAffected}, seen by the records API at once', async () => {
    const res = await run({
      sql: 'UPDATE posts SET title = upper(title) WHERE n <= 3',
      write: true,
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ rowsAffected: 3 })
    const view = await t.api('GET', '/api/collections/posts/records/post00000000002', {
      token: t.suToken,
    })
    expect(view.body.title).toBe('TITLE 2')
    const returning = await run({
      sql: "INSERT INTO posts (id, title, n) VALUES ('viaconsole00001', 'new', 1000), ('viaconsole00002', 'new', 1001) RETURNING id",
      write: true,
    })
    expect(returning.body).toEqual({ rowsAffected: 2 })
    const list = await t.api('GET', '/api/collections/posts/records?filter=title="new"')
    expect(list.body.totalItems).toBe(2)
    const del = await run({ sql: "DELETE FROM posts WHERE title = 'new'", write: true })
    expect(del.body).toEqual({ rowsAffected: 2 })
    const read = await run({ sql: 'SELECT count(*) AS n FROM posts', write: true })
    expect(read.body).toEqual({ rowsAffected: 0 })
  })

  it('allows tables of its own (DDL), and the app keeps working', async () => {
    expect((await run({ sql: 'CREATE TABLE scratch (v INTEGER)', write: true })).status).toBe(200)
    expect(
      (await run({ sql: 'INSERT INTO scratch VALUES (1), (2), (3)', write: true })).body,
    ).toEqual({ rowsAffected: 3 })
    expect((await run({ sql: 'CREATE INDEX scratch_v ON scratch (v)', write: true })).status).toBe(
      200,
    )
    expect((await run({ sql: 'SELECT sum(v) AS s FROM scratch' })).body.rows).toEqual([{ s: 6 }])
    expect((await run({ sql: 'DROP TABLE scratch', write: true })).status).toBe(200)
    const list = await t.api('GET', '/api/collections/posts/records?perPage=1')
    expect(list.status).toBe(200)
  })

  it("refuses to change a collection's table or svcbase's own tables, leaving the registry consistent", async () => {
    const schema = (table: string) =>
      `The SQL console cannot change the schema of ${table}, a collection's table or one of svcbase's own: use the collections API.`
    const rows = (table: string) =>
      `The SQL console cannot change the rows of ${table}, which svcbase keeps itself: use the collections or settings API.`
    const cases: [string, string][] = [
      ['ALTER TABLE posts ADD COLUMN x TEXT', schema('posts')],
      ['DROP TABLE posts', schema('posts')],
      ['ALTER TABLE posts RENAME TO posts_old', schema('posts')],
      ['CREATE INDEX posts_n ON posts (n)', schema('posts')],
      ['CREATE TRIGGER posts_t AFTER INSERT ON posts BEGIN SELECT 1; END', schema('posts')],
      ['DROP TABLE _superusers', schema('_superusers')],
      ['CREATE TABLE _COLLECTIONS_x (a)', ''],
      ['DROP TABLE _params', schema('_params')],
      ["UPDATE _collections SET name = 'hijacked' WHERE name = 'posts'", rows('_collections')],
      ['DELETE FROM _collections', rows('_collections')],
      ["INSERT INTO _params (id, value) VALUES ('x', '{}')", rows('_params')],
    ]
    for (const [text, message] of cases) {
      const res = await run({ sql: text, write: true })
      if (message === '') {
        expect(res.status, text).toBe(200)
        continue
      }
      expect(res.status, text).toBe(400)
      expect(res.body.message, text).toBe(message)
    }
    // Nothing changed: the collection, its table and its records work as before.
    const columns = await run({ sql: "SELECT name FROM pragma_table_info('posts') ORDER BY cid" })
    expect(columns.body.rows.map((r: { name: string }) => r.name)).toEqual([
      'id',
      'title',
      'n',
      'created',
      'updated',
    ])
    const indexes = await run({
      sql: "SELECT name FROM sqlite_schema WHERE tbl_name = 'posts' AND type = 'index' AND sql IS NOT NULL",
    })
    // Only the index svcbase keeps on `created` (collections.md).
    expect(indexes.body.rows).toEqual([{ name: expect.stringMatching(/^__sort_\w+_created$/) }])
    const list = await t.api('GET', '/api/collections/posts/records?perPage=1&sort=n')
    expect(list.status).toBe(200)
    expect(list.body.totalItems).toBe(600)
    const create = await t.api('POST', '/api/collections/posts/records', {
      token: t.suToken,
      body: { title: 'after', n: 2000 },
    })
    expect(create.status).toBe(200)
    expect(Object.keys(create.body)).not.toContain('x')
    const coll = await t.api('GET', '/api/collections/posts', { token: t.suToken })
    expect(coll.body.name).toBe('posts')
  })

  it('refuses writes that reach files: ATTACH, DETACH, VACUUM INTO', async () => {
    for (const text of [
      "ATTACH DATABASE '/tmp/svc-console-x.db' AS x",
      "/* hidden */ attach '/tmp/svc-console-x.db' AS x",
      'DETACH x',
      "VACUUM INTO '/tmp/svc-console-copy.db'",
    ]) {
      const res = await run({ sql: text, write: true })
      expect(res.status, text).toBe(400)
      expect(res.body.message).toBe(
        'The SQL console cannot attach databases or write database files (ATTACH, DETACH, VACUUM INTO).',
      )
    }
  })

  it('serialises writes with the app: record creates during a long console write wait and succeed', async () => {
    const write = run({
      sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) UPDATE posts SET title = title WHERE n = 1 AND (SELECT count(*) FROM c) > 0',
      write: true,
    })
    const creates = Array.from({ length: 5 }, (_, i) =>
      t.api('POST', '/api/collections/posts/records', {
        token: t.suToken,
        body: { title: 'during', n: 3000 + i },
      }),
    )
    expect((await write).body).toEqual({ rowsAffected: 1 })
    for (const c of await Promise.all(creates)) expect(c.status).toBe(200)
  })

  it("keeps the SQL text and the rows out of the request's log row; errors keep SQLite's message", async () => {
    const marker = 'c0ns0le-marker'
    const ok = await run({ sql: `SELECT '${marker}-value' AS v` })
    expect(ok.status).toBe(200)
    const bad = await run({ sql: `SELECT '${marker}-bad' FROM nope_${marker.replace(/-/g, '_')}` })
    expect(bad.status).toBe(400)
    await t.server.app.services.get('logs').flush()
    const logs = await t.api('GET', "/api/logs?filter=data.url='/api/sql'&perPage=100", {
      token: t.suToken,
    })
    const texts = logs.body.items.map((l: unknown) => JSON.stringify(l))
    expect(texts.length).toBeGreaterThanOrEqual(2)
    expect(texts.some((l: string) => l.includes(`${marker}-value`))).toBe(false)
    expect(texts.some((l: string) => l.includes(`'${marker}-bad'`))).toBe(false)
    const failed = logs.body.items.find((l: { data: { status: number; error?: string } }) =>
      l.data.error?.includes('no such table'),
    )
    expect(failed.data.error).toBe('SQL error: no such table: nope_c0ns0le_marker.')
  })
})
