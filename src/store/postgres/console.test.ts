/**
 * The SQL console on PostgreSQL against a real server (`SVC_TEST_PG_URL`, started by the test
 * setup), in a database of this file's own: reads in a read-only transaction with the row and
 * byte caps, the timeout, writes serialised with the app and refused when they touch what is
 * frozen, and the audit log's append-only guard.
 */
import pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ConsoleRefused, ConsoleTimeout, type ConsoleRequest } from '../console.js'
import { DbError } from '../db.js'
import { ident, sql } from '../sql.js'
import { postgresAppendOnly } from './append-only.js'
import { runPostgresConsole } from './console.js'
import { PgDb } from './database.js'

const baseUrl = process.env.SVC_TEST_PG_URL
if (!baseUrl)
  throw new Error('SVC_TEST_PG_URL is not set: the PostgreSQL tests need the test setup')
const dbName = `svc_console_${Math.random().toString(36).slice(2, 10)}`
const parsed = new URL(baseUrl)
parsed.pathname = `/${dbName}`
const url = parsed.toString()

const server = new pg.Pool({ connectionString: baseUrl, max: 1 })
server.on('error', () => {})
let db: PgDb

const base: ConsoleRequest = {
  sql: '',
  write: false,
  maxRows: 5,
  maxBytes: 1 << 20,
  timeoutMs: 10_000,
  frozenSchema: ['_collections', '_params', 'posts', '_audit_log'],
  readOnlyTables: ['_collections', '_params'],
}
const read = (text: string, more: Partial<ConsoleRequest> = {}) =>
  runPostgresConsole(db, { ...base, sql: text, ...more })
const write = (text: string, more: Partial<ConsoleRequest> = {}) =>
  runPostgresConsole(db, { ...base, sql: text, write: true, ...more })

beforeAll(async () => {
  await server.query(`CREATE DATABASE ${dbName}`)
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query('CREATE SCHEMA app')
  await admin.end()
  db = new PgDb({ url, schema: 'app' })
})

afterAll(async () => {
  await db?.close()
  await server.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
  await server.end()
})

beforeEach(async () => {
  await db.run(sql`DROP TABLE IF EXISTS _collections, _params, posts, scratch, _audit_log`)
  await db.run(sql`CREATE TABLE _collections (id TEXT PRIMARY KEY, name TEXT)`)
  await db.run(sql`CREATE TABLE _params (id TEXT PRIMARY KEY, value JSONB)`)
  await db.run(sql`CREATE TABLE posts (id TEXT PRIMARY KEY, title TEXT, n BIGINT, b BYTEA)`)
  await db.run(sql`INSERT INTO _collections VALUES ('c1', 'posts')`)
  await db.run(sql`INSERT INTO _params VALUES ('settings', '{"a": 1}')`)
  for (let i = 1; i <= 8; i++) {
    await db.run(
      sql`INSERT INTO posts VALUES (${`p${i}`}, ${`title ${i}`}, ${i}, ${Buffer.from([i])})`,
    )
  }
  await db.run(sql`CREATE TABLE _audit_log (id TEXT PRIMARY KEY, created TEXT NOT NULL)`)
  await db.run(
    sql`INSERT INTO _audit_log VALUES ('a1', '2020-01-01 00:00:00.000Z'), ('a2', '2030-01-01 00:00:00.000Z')`,
  )
  for (const s of postgresAppendOnly.guard('_audit_log')) await db.run(s)
})

describe('runPostgresConsole: reads', () => {
  it('answers columns and rows, cut at maxRows with truncated', async () => {
    const r = await read('SELECT id, title, n, b, n AS n FROM posts ORDER BY n;')
    expect(r).toEqual({
      kind: 'read',
      columns: ['id', 'title', 'n', 'b', 'n:2'],
      rows: [1, 2, 3, 4, 5].map((i) => ({
        id: `p${i}`,
        title: `title ${i}`,
        n: i,
        b: Buffer.from([i]).toString('base64'),
        'n:2': i,
      })),
      truncated: true,
    })
    const all = await read('SELECT id FROM posts', { maxRows: 100 })
    expect(all.kind === 'read' && all.rows.length).toBe(8)
    expect(all.kind === 'read' && all.truncated).toBe(false)
  })

  it('keeps integers past 2^53 and JSON as text, and answers an empty result with its columns', async () => {
    const r = await read(`SELECT 9007199254740993::bigint AS big, '{"a":1}'::jsonb AS j`)
    expect(r.kind === 'read' && r.rows).toEqual([{ big: '9007199254740993', j: '{"a": 1}' }])
    const empty = await read('SELECT id FROM posts WHERE false')
    expect(empty).toEqual({ kind: 'read', columns: ['id'], rows: [], truncated: false })
  })

  it('cuts a read at maxBytes without reading a huge result whole', async () => {
    const r = await read(
      // 8^9 rows, streamed: the whole result would take hours and gigabytes.
      `SELECT repeat('x', 1000) AS v FROM posts a, posts b, posts c, posts d, posts e, posts f, posts g, posts h, posts i`,
      {
        maxRows: 500,
        maxBytes: 10_000,
      },
    )
    expect(r.kind === 'read' && r.truncated).toBe(true)
    expect(r.kind === 'read' && r.rows.length).toBeLessThan(10)
  })

  it('refuses any write in a read, whatever its text', async () => {
    const err = await read(`WITH x AS (DELETE FROM posts RETURNING id) SELECT * FROM x`).catch(
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(DbError)
    await expect(read(`SELECT nextval('s')`)).rejects.toBeInstanceOf(DbError)
    await expect(read('SELECT 1; DELETE FROM posts')).rejects.toThrow(
      'cannot insert multiple commands into a prepared statement',
    )
    const n = await db.get<{ n: number }>(sql`SELECT count(*) AS n FROM posts`)
    expect(n?.n).toBe(8)
  })

  it('answers a driver error with PostgreSQL message', async () => {
    await expect(read('SELECT nope FROM posts')).rejects.toThrow('column "nope" does not exist')
  })

  it('cancels a statement at timeoutMs', async () => {
    const err = await read('SELECT pg_sleep(30)', { timeoutMs: 300 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConsoleTimeout)
  })
})

describe('runPostgresConsole: writes', () => {
  it('writes and answers the rows changed; DDL elsewhere is a schema change', async () => {
    expect(await write(`UPDATE posts SET title = 'x' WHERE n <= 3`)).toEqual({
      kind: 'write',
      rowsAffected: 3,
      schemaChanged: false,
    })
    expect(await write('CREATE TABLE scratch (x int)')).toEqual({
      kind: 'write',
      rowsAffected: 0,
      schemaChanged: true,
    })
    expect(await write('SELECT * FROM posts')).toEqual({
      kind: 'write',
      rowsAffected: 0,
      schemaChanged: false,
    })
  })

  it('rolls back and refuses a change to the schema of a frozen table', async () => {
    for (const text of [
      'ALTER TABLE posts ADD COLUMN extra TEXT',
      'CREATE INDEX posts_title ON posts (title)',
      'DROP TABLE _params',
      'ALTER TABLE _audit_log DISABLE TRIGGER svc__audit_log_no_change',
      `CREATE OR REPLACE FUNCTION svc__audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN OLD; END $$`,
    ]) {
      const err = await write(text).catch((e: unknown) => e)
      expect(err, text).toBeInstanceOf(ConsoleRefused)
      expect((err as ConsoleRefused).reason).toBe('schema')
    }
    const cols = await db.all(
      sql`SELECT column_name FROM information_schema.columns WHERE table_schema = 'app' AND table_name = 'posts'`,
    )
    expect(cols).toHaveLength(4)
  })

  it('refuses a frozen table changed and changed back in one statement', async () => {
    const text = `DO $$ BEGIN
      ALTER TABLE _audit_log DISABLE TRIGGER svc__audit_log_no_change;
      DELETE FROM _audit_log;
      ALTER TABLE _audit_log ENABLE TRIGGER svc__audit_log_no_change;
    END $$`
    const err = await write(text).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConsoleRefused)
    const n = await db.get<{ n: number }>(sql`SELECT count(*) AS n FROM _audit_log`)
    expect(n?.n).toBe(2)
  })

  it('rolls back and refuses a change to the rows of a read-only table', async () => {
    const err = await write(`UPDATE _params SET value = '{}'`).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConsoleRefused)
    expect((err as ConsoleRefused).reason).toBe('rows')
    expect((err as ConsoleRefused).table).toBe('_params')
    const row = await db.get<{ value: string }>(sql`SELECT value FROM _params`)
    expect(row?.value).toBe('{"a": 1}')
  })

  it('serialises with the app: a write waits for the transaction in progress', async () => {
    const order: string[] = []
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    const tx = db.transaction(async (t) => {
      await t.run(sql`UPDATE posts SET title = 'tx' WHERE id = 'p1'`)
      await held
      order.push('tx')
    })
    const w = write(`UPDATE posts SET title = 'console' WHERE id = 'p1'`).then(() =>
      order.push('console'),
    )
    release()
    await Promise.all([tx, w])
    expect(order).toEqual(['tx', 'console'])
    const row = await db.get<{ title: string }>(sql`SELECT title FROM posts WHERE id = 'p1'`)
    expect(row?.title).toBe('console')
  })

  it('cancels a write at timeoutMs and rolls it back', async () => {
    const err = await write(`UPDATE posts SET title = 'slow' WHERE pg_sleep(1) IS NOT NULL`, {
      timeoutMs: 300,
    }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConsoleTimeout)
    const n = await db.get<{ n: number }>(sql`SELECT count(*) AS n FROM posts WHERE title = 'slow'`)
    expect(n?.n).toBe(0)
  })
})

describe('the append-only audit log on PostgreSQL', () => {
  it('refuses UPDATE, DELETE and TRUNCATE on any connection; the prune alone deletes', async () => {
    await expect(db.run(sql`UPDATE _audit_log SET created = 'x'`)).rejects.toThrow(
      '_audit_log is append-only: its rows cannot be updated or deleted',
    )
    await expect(db.run(sql`DELETE FROM _audit_log`)).rejects.toThrow('append-only')
    await expect(db.run(sql`TRUNCATE _audit_log`)).rejects.toThrow('append-only')
    await expect(write('DELETE FROM _audit_log')).rejects.toThrow('append-only')
    // A setting cannot open it (there is none to set).
    await expect(
      write(
        `WITH s AS (SELECT set_config('svc.prune', 'on', true)) DELETE FROM _audit_log WHERE EXISTS (SELECT 1 FROM s)`,
      ),
    ).rejects.toThrow('append-only')
    expect(await postgresAppendOnly.prune(db, '_audit_log', '2025-01-01 00:00:00.000Z')).toBe(1)
    const rows = await db.all<{ id: string }>(sql`SELECT id FROM ${ident('_audit_log')}`)
    expect(rows).toEqual([{ id: 'a2' }])
    // The guard is back after the prune.
    await expect(db.run(sql`DELETE FROM _audit_log`)).rejects.toThrow('append-only')
    // The guard is idempotent.
    for (const s of postgresAppendOnly.guard('_audit_log')) await db.run(s)
  })
})
