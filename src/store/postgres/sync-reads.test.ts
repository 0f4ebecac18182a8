/**
 * Synchronous reads on PostgreSQL against a real server (`SVC_TEST_PG_URL`, started by the test
 * setup), in a database of this file's own: the worker starts on the first read only, rows come
 * back exactly as `PgDb.all` returns them, SQL errors are translated as `PgDb`'s, the server's
 * timeouts and the caller's wait limit end a read that would hang, a dead worker is a clear
 * error, a transaction's handle reads on the transaction's own connection (its writes seen, a
 * failed read leaving it usable), and closing stops the thread.
 */
import { createRequire } from 'node:module'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { trackHandles } from '../../../test/helpers/leaks.js'
import { DbError, type Db } from '../db.js'
import { sql } from '../sql.js'
import { createPostgresStore } from './postgres-store.js'
import { PgSyncDb, SyncReader } from './sync-reads.js'

const baseUrl = process.env.SVC_TEST_PG_URL
if (!baseUrl)
  throw new Error('SVC_TEST_PG_URL is not set: the PostgreSQL tests need the test setup')
const dbName = `svc_sync_${Math.random().toString(36).slice(2, 10)}`
const parsed = new URL(baseUrl)
parsed.pathname = `/${dbName}`
const url = parsed.toString()

const server = new pg.Pool({ connectionString: baseUrl, max: 1 })
server.on('error', () => {})
let db: PgSyncDb

/** A table with a column of every kind the app reads raw, and two rows. */
const typed = sql`SELECT id, n, big, num, flag, doc, docb, bytes, at, tags, id AS "dup", n AS "dup"
  FROM typed ORDER BY id`

beforeAll(async () => {
  await server.query(`CREATE DATABASE ${dbName}`)
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query('CREATE SCHEMA app')
  await admin.query('CREATE TABLE public.typed (id TEXT)') // not the schema the reads use
  await admin.end()
  db = new PgSyncDb({ url, schema: 'app' })
  await db.run(sql`CREATE TABLE typed (id TEXT PRIMARY KEY, n DOUBLE PRECISION, big BIGINT,
    num NUMERIC, flag BOOLEAN, doc JSON, docb JSONB, bytes BYTEA, at TIMESTAMPTZ, tags TEXT[])`)
  await db.run(sql`INSERT INTO typed VALUES
    ('a', 1.5, 9007199254740991, 12.25, TRUE, '{"b": 1,  "a": [1, 2]}', '{"x": null}',
     '\\x00ff10', '2024-05-06T07:08:09.123Z', ARRAY['x', 'y,z']),
    ('b', NULL, NULL, NULL, FALSE, NULL, NULL, NULL, NULL, NULL)`)
})

afterAll(async () => {
  await db?.close()
  await server.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
  await server.end()
})

describe('PgSyncDb', () => {
  it('starts its worker on the first synchronous read only', async () => {
    const fresh = new PgSyncDb({ url, schema: 'app' })
    try {
      await fresh.all(sql`SELECT 1`)
      expect(fresh.syncReaderRunning).toBe(false)
      expect(fresh.getSync(sql`SELECT 2 AS two`)).toEqual({ two: 2 })
      expect(fresh.syncReaderRunning).toBe(true)
    } finally {
      await fresh.close()
    }
    expect(fresh.syncReaderRunning).toBe(false)
  })

  it('returns rows exactly as PgDb.all does, in the pool schema', async () => {
    const rows = db.allSync<Record<string, unknown>>(typed)
    expect(rows).toEqual(await db.all(typed))
    const [a, b] = rows
    expect(a).toMatchObject({
      id: 'a',
      n: 1.5,
      big: 9007199254740991,
      num: 12.25,
      flag: true,
      doc: '{"b": 1,  "a": [1, 2]}',
      docb: '{"x": null}',
      tags: ['x', 'y,z'],
      dup: 1.5,
    })
    expect(a!.bytes).toEqual(Buffer.from([0, 0xff, 0x10]))
    expect(a!.at).toEqual(new Date('2024-05-06T07:08:09.123Z'))
    expect(Object.keys(a!)).toEqual(Object.keys((await db.all(typed))[0]!))
    expect(b).toMatchObject({ n: null, big: null, flag: false, doc: null, bytes: null })
  })

  it('binds parameters as PgDb does: texts, numbers, booleans, null, bytes', async () => {
    const q = sql`SELECT id FROM typed WHERE (id = ${'a'} OR n = ${2}) AND flag = ${true}
      AND ${null}::text IS NULL AND bytes = ${Buffer.from([0, 0xff, 0x10])}`
    expect(db.allSync(q)).toEqual([{ id: 'a' }])
    expect(db.getSync(sql`SELECT id FROM typed WHERE id = ${'none'}`)).toBeUndefined()
  })

  it('translates SQL errors as PgDb does', async () => {
    const cases = [
      sql`SELECT 1 / ${0}::int AS x`,
      sql`SELECT * FROM no_such_table`,
      sql`SELECT ${'abc'}::int AS x`,
    ]
    for (const q of cases) {
      const expected = await db.all(q).catch((e: unknown) => e)
      expect(expected).toBeInstanceOf(DbError)
      let got: unknown
      try {
        db.allSync(q)
      } catch (e) {
        got = e
      }
      expect(got).toBeInstanceOf(DbError)
      expect((got as DbError).message).toBe((expected as DbError).message)
      expect((got as DbError).kind).toBe((expected as DbError).kind)
    }
    // the reader still answers after errors
    expect(db.getSync(sql`SELECT 3 AS three`)).toEqual({ three: 3 })
  })

  it("ends a long read with the server's statement timeout, and goes on", async () => {
    const quick = new PgSyncDb({ url, schema: 'app' }, { statementTimeoutMs: 200 })
    try {
      expect(() => quick.allSync(sql`SELECT pg_sleep(30)`)).toThrow(
        /canceling statement due to statement timeout/,
      )
      expect(quick.getSync(sql`SELECT 4 AS four`)).toEqual({ four: 4 })
    } finally {
      await quick.close()
    }
  })

  it('gives up after its wait limit and stops the worker; the next read starts another', async () => {
    const reader = new SyncReader({
      connection: { connectionString: url, options: '-c search_path=app' },
      types: pg.types,
      statementTimeoutMs: 60_000,
      waitMs: 300,
    })
    try {
      expect(() => reader.all({ sql: 'SELECT pg_sleep(30)', params: [] })).toThrow(
        /got no answer within 300 ms; its worker thread was stopped/,
      )
      expect(reader.running).toBe(false)
      expect(reader.all({ sql: 'SELECT count(*)::int AS c FROM typed', params: [] })).toEqual([
        { c: 2 },
      ])
      expect(reader.running).toBe(true)
    } finally {
      await reader.close()
    }
    expect(reader.running).toBe(false)
  })

  it('fails a read with a clear error when its worker dies, and starts another next time', async () => {
    const reader = new SyncReader({
      connection: { connectionString: url },
      types: pg.types,
      driver: '/nonexistent/pg-driver.js',
    })
    try {
      expect(() => reader.all({ sql: 'SELECT 1', params: [] })).toThrow(
        /synchronous reader's worker thread stopped: Cannot find module '\/nonexistent\/pg-driver\.js'/,
      )
      expect(reader.running).toBe(false)
    } finally {
      await reader.close()
    }
    const good = new SyncReader({
      connection: { connectionString: url },
      types: pg.types,
      driver: createRequire(import.meta.url).resolve('pg'),
    })
    try {
      expect(good.all({ sql: 'SELECT 5 AS five', params: [] })).toEqual([{ five: 5 }])
    } finally {
      await good.close()
    }
  })

  it('reconnects once when the server dropped its connection', async () => {
    const pid = db.getSync<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)!.pid
    await server.query('SELECT pg_terminate_backend($1)', [pid])
    expect(db.getSync<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)!.pid).not.toBe(pid)
  })

  it("gives a transaction's handle synchronous reads on its own connection: its writes seen", async () => {
    let sync: unknown[] = []
    let committedMeanwhile: unknown[] = []
    let kept: Db | null = null
    await db.transaction(async (tx) => {
      kept = tx
      expect(tx.getSync!(sql`SELECT 1 AS one`)).toEqual({ one: 1 })
    })
    // a handle kept past its transaction reads committed data on the worker
    expect(kept!.getSync!(sql`SELECT count(*)::int AS c FROM typed`)).toEqual({ c: 2 })
    await db
      .transaction(async (tx: Db) => {
        await tx.run(sql`INSERT INTO typed (id, n, doc) VALUES ('in-tx', 7, '{"k": [1]}')`)
        sync = tx.allSync!(sql`SELECT id, n, doc FROM typed WHERE id = ${'in-tx'}`)
        expect(tx.allSync!(typed)).toEqual(await tx.all(typed))
        committedMeanwhile = db.allSync(sql`SELECT id FROM typed WHERE id = 'in-tx'`)
        throw new Error('roll back')
      })
      .catch(() => {})
    expect(sync).toEqual([{ id: 'in-tx', n: 7, doc: '{"k": [1]}' }])
    expect(committedMeanwhile).toEqual([])
    expect(db.allSync(sql`SELECT id FROM typed WHERE id = 'in-tx'`)).toEqual([])
  })

  it('leaves the transaction usable after a failed or timed-out read, its settings unchanged', async () => {
    const quick = new PgSyncDb({ url, schema: 'app' }, { statementTimeoutMs: 200 })
    try {
      await quick.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO typed (id) VALUES ('kept')`)
        expect(() => tx.allSync!(sql`SELECT 1 / ${0}::int AS x`)).toThrow(/division by zero/)
        expect(() => tx.allSync!(sql`SELECT pg_sleep(30)`)).toThrow(
          /canceling statement due to statement timeout/,
        )
        expect(await tx.get(sql`SELECT current_setting('statement_timeout') AS t`)).toEqual({
          t: '0',
        })
        expect(tx.getSync!(sql`SELECT count(*)::int AS c FROM typed`)).toEqual({ c: 3 })
      })
      expect(await quick.get(sql`SELECT id FROM typed WHERE id = 'kept'`)).toEqual({ id: 'kept' })
    } finally {
      await quick.run(sql`DELETE FROM typed WHERE id = 'kept'`)
      await quick.close()
    }
  })

  it("reads a table the transaction's own DDL changed, without waiting for its lock", async () => {
    let rows: unknown[] = []
    await db
      .transaction(async (tx) => {
        await tx.run(sql`ALTER TABLE typed ADD COLUMN extra TEXT DEFAULT 'new'`)
        rows = tx.allSync!(sql`SELECT id, extra FROM typed ORDER BY id`)
        throw new Error('roll back')
      })
      .catch(() => {})
    expect(rows).toEqual([
      { id: 'a', extra: 'new' },
      { id: 'b', extra: 'new' },
    ])
  })

  it('falls back to committed data while the transaction has a statement in flight', async () => {
    let sync: unknown[] = ['not read']
    await db
      .transaction(async (tx) => {
        await tx.run(sql`INSERT INTO typed (id) VALUES ('busy')`)
        const inFlight = tx.all(sql`SELECT pg_sleep(0.1)`)
        sync = tx.allSync!(sql`SELECT id FROM typed WHERE id = 'busy'`)
        await inFlight
        throw new Error('roll back')
      })
      .catch(() => {})
    expect(sync).toEqual([])
  })

  it("fails, not hangs, a worker read of a table an open transaction's DDL locks", async () => {
    const quick = new PgSyncDb({ url, schema: 'app' }, { lockTimeoutMs: 200 })
    try {
      let error: unknown
      await quick
        .transaction(async (tx) => {
          await tx.run(sql`ALTER TABLE typed ADD COLUMN extra TEXT`)
          try {
            quick.allSync(sql`SELECT id FROM typed`)
          } catch (e) {
            error = e
          }
          throw new Error('roll back')
        })
        .catch(() => {})
      expect(error).toBeInstanceOf(DbError)
      expect((error as Error).message).toMatch(/canceling statement due to lock timeout/)
    } finally {
      await quick.close()
    }
  })

  it('refuses reads once closed, and leaves no thread behind', async () => {
    const handles = trackHandles()
    try {
      const fresh = new PgSyncDb({ url, schema: 'app' })
      expect(fresh.getSync(sql`SELECT 1 AS one`)).toEqual({ one: 1 })
      expect(handles.live().some((h) => h.type === 'WORKER')).toBe(true)
      await fresh.close()
      expect(() => fresh.getSync(sql`SELECT 1 AS one`)).toThrow(/the database is closed/)
      await new Promise((resolve) => setImmediate(resolve))
      expect(handles.live().filter((h) => h.type === 'WORKER')).toEqual([])
    } finally {
      handles.stop()
    }
  })
})

describe('the PostgreSQL store', () => {
  it('offers synchronous reads on both databases, each in its schema, closed with the store', async () => {
    const store = createPostgresStore({ url, schema: 'shop' })
    await store.open()
    try {
      const main = store.database('main')
      const aux = store.database('auxiliary')
      expect(main.getSync!(sql`SELECT current_schema() AS s`)).toEqual({ s: 'shop' })
      expect(aux.getSync!(sql`SELECT current_schema() AS s`)).toEqual({ s: 'shop_aux' })
    } finally {
      await store.close()
    }
    expect(() => store.database('main')).toThrow(/not open/)
  })
})
