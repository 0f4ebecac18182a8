/**
 * The SQL console on PostgreSQL, black box (SPEC §4.14; docs/sql-console.md "On PostgreSQL"):
 * the app of this file runs on the test PostgreSQL server (`SVC_TEST_PG_URL`, started by the
 * test setup) in both test passes. Reads in a read-only transaction cut at 500 rows, writes,
 * what a write may not change, PostgreSQL's own escapes refused, errors verbatim, the timeout.
 * The SQLite console is sql-console.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtInFeatures } from '../src/features/index.js'
import { sqlFeature } from '../src/features/sql/index.js'
import { startServer, type TestServer } from './helpers/server.js'

const pgUrl = process.env.SVC_TEST_PG_URL
if (!pgUrl) throw new Error('SVC_TEST_PG_URL is not set: the PostgreSQL tests need the test setup')
// Every app of this file on PostgreSQL, one schema per data folder.
process.env.SVC_DATABASE_URL = pgUrl
process.env.SVC_DATABASE_SCHEMA = '@dir'

describe('SQL console on PostgreSQL', () => {
  let t: TestServer
  const run = (body: unknown, token: string | null = t.suToken) =>
    t.api('POST', '/api/sql', { token, body })

  beforeAll(async () => {
    const features = builtInFeatures().map((f) =>
      f.name === 'sql' ? sqlFeature({ timeoutMs: 1500 }) : f,
    )
    t = await startServer({ features })
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
    const seeded = await run({
      sql: `INSERT INTO posts (id, title, n, created, updated)
            SELECT 'post' || lpad(x::text, 11, '0'), 'title ' || x, x,
                   '2024-01-01 00:00:00.000Z', '2024-01-01 00:00:00.000Z'
              FROM generate_series(1, 600) AS x`,
      write: true,
    })
    expect(seeded.body).toEqual({ rowsAffected: 600 })
  })
  afterAll(() => t.close())

  it('reads: {columns, rows, truncated}, cut at 500 rows; values JSON cannot carry as text', async () => {
    const res = await run({ sql: 'SELECT id, title, n FROM posts ORDER BY n' })
    expect(res.status).toBe(200)
    expect(res.body.columns).toEqual(['id', 'title', 'n'])
    expect(res.body.rows).toHaveLength(500)
    expect(res.body.rows[0]).toEqual({ id: 'post00000000001', title: 'title 1', n: 1 })
    expect(res.body.truncated).toBe(true)
    const values = await run({
      sql: `SELECT '\\x00ff10'::bytea AS blob, 9007199254740993::bigint AS big, 'Infinity'::float8 AS inf, NULL AS empty, 1 AS a, 2 AS a`,
    })
    expect(values.body.rows).toEqual([
      { blob: 'AP8Q', big: '9007199254740993', inf: 'Infinity', empty: null, a: 1, 'a:2': 2 },
    ])
  })

  it('reads a huge result without reading it whole', async () => {
    const res = await run({ sql: 'SELECT a.n, b.n, c.n FROM posts a, posts b, posts c' })
    expect(res.status).toBe(200)
    expect(res.body.rows).toHaveLength(500)
    expect(res.body.truncated).toBe(true)
  })

  it('runs reads in a read-only transaction: a WITH … DELETE passes the prefix check and is refused', async () => {
    const res = await run({ sql: 'WITH x AS (DELETE FROM posts RETURNING id) SELECT * FROM x' })
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/^SQL error: /)
    const one = await run({ sql: 'SELECT 1; DELETE FROM posts', write: true })
    expect(one.body.message).toBe(
      'SQL error: cannot insert multiple commands into a prepared statement.',
    )
    expect((await run({ sql: 'SELECT count(*) AS n FROM posts' })).body.rows).toEqual([{ n: 600 }])
  })

  it('writes: {rowsAffected}, seen by the records API at once', async () => {
    const up = await run({ sql: `UPDATE posts SET title = upper(title) WHERE n <= 3`, write: true })
    expect(up.body).toEqual({ rowsAffected: 3 })
    const rec = await t.api('GET', '/api/collections/posts/records?filter=n%3D1')
    expect(rec.body.items[0].title).toBe('TITLE 1')
    expect((await run({ sql: 'CREATE TABLE scratch (v INTEGER)', write: true })).status).toBe(200)
    expect(
      (await run({ sql: 'INSERT INTO scratch VALUES (1), (2), (3)', write: true })).body,
    ).toEqual({ rowsAffected: 3 })
    expect((await run({ sql: 'SELECT sum(v) AS s FROM scratch' })).body.rows).toEqual([{ s: 6 }])
    expect((await run({ sql: 'DROP TABLE scratch', write: true })).status).toBe(200)
  })

  it("refuses to change a collection's table or svcbase's own tables", async () => {
    const schema = (table: string) =>
      `The SQL console cannot change the schema of ${table}, a collection's table or one of svcbase's own: use the collections API.`
    const rows = (table: string) =>
      `The SQL console cannot change the rows of ${table}, which svcbase keeps itself: use the collections or settings API.`
    const cases: [string, string][] = [
      ['ALTER TABLE posts ADD COLUMN x TEXT', schema('posts')],
      ['DROP TABLE posts', schema('posts')],
      ['ALTER TABLE posts RENAME TO posts_old', schema('posts')],
      ['CREATE INDEX posts_n ON posts (n)', schema('posts')],
      ['DROP TABLE _superusers', schema('_superusers')],
      ['DROP TABLE _params', schema('_params')],
      ["UPDATE _collections SET name = 'hijacked' WHERE name = 'posts'", rows('_collections')],
      ['DELETE FROM _collections', rows('_collections')],
      ["INSERT INTO _params (id, value) VALUES ('x', '{}')", rows('_params')],
    ]
    for (const [text, message] of cases) {
      const res = await run({ sql: text, write: true })
      expect(res.status, text).toBe(400)
      expect(res.body.message, text).toBe(message)
    }
    const list = await t.api('GET', '/api/collections/posts/records?perPage=1&sort=n')
    expect(list.body.totalItems).toBe(600)
    const create = await t.api('POST', '/api/collections/posts/records', {
      token: t.suToken,
      body: { title: 'after', n: 2000 },
    })
    expect(create.status).toBe(200)
    expect(Object.keys(create.body)).not.toContain('x')
  })

  it("refuses PostgreSQL's ways out of the database and past the console's safeguards", async () => {
    const cases: [string, boolean, string][] = [
      [`COPY posts TO PROGRAM 'cat > /tmp/svc-x'`, true, 'COPY'],
      [`SELECT pg_read_file('/etc/passwd')`, false, 'server files'],
      [`SELECT lo_import('/etc/passwd')`, true, 'server files'],
      [`SET ROLE postgres`, true, 'SET/RESET'],
      [`SET session_replication_role = replica`, true, 'SET/RESET'],
      [`DO $$ BEGIN PERFORM 1; END $$`, true, 'DO'],
      [`CREATE EXTENSION dblink`, true, 'functions, procedures and extensions'],
      [`SELECT * FROM dblink('dbname=x', 'SELECT 1') AS t(x int)`, false, 'dblink'],
      [`SELECT pg_terminate_backend(pg_backend_pid())`, false, 'server administration functions'],
    ]
    for (const [text, write, what] of cases) {
      const res = await run({ sql: text, write })
      expect(res.status, text).toBe(400)
      expect(res.body.message, text).toBe(
        `The SQL console does not run ${what}: it would reach outside the database or past the console's safeguards.`,
      )
    }
  })

  it("returns PostgreSQL's errors verbatim in a 400", async () => {
    const res = await run({ sql: 'SELECT * FROM nope' })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('SQL error: relation "nope" does not exist.')
  })

  it('cancels a read and a write at the timeout; the write is rolled back', async () => {
    const read = await run({ sql: 'SELECT pg_sleep(30)' })
    expect(read.status).toBe(400)
    expect(read.body.message).toMatch(/1\.5 s/)
    const write = await run({
      sql: `UPDATE posts SET title = 'slow' WHERE pg_sleep(0.1) IS NOT NULL`,
      write: true,
    })
    expect(write.status).toBe(400)
    expect(write.body.message).toMatch(/1\.5 s/)
    const slow = await run({ sql: `SELECT count(*) AS n FROM posts WHERE title = 'slow'` })
    expect(slow.body.rows).toEqual([{ n: 0 }])
  })
})
