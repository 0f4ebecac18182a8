/**
 * Snapshots, their check and the restore against a real PostgreSQL (`SVC_TEST_PG_URL`, started
 * by the test setup), in a database of this file's own.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SnapshotEngineMismatch } from '../snapshot-engines.js'
import { restorePostgres } from './restore.js'
import { backupPostgres } from './snapshot.js'
import { checkPostgresSnapshot } from './snapshot-check.js'

const baseUrl = process.env.SVC_TEST_PG_URL
if (!baseUrl)
  throw new Error('SVC_TEST_PG_URL is not set: the PostgreSQL tests need the test setup')
const dbName = `svc_snapshot_${Math.random().toString(36).slice(2, 10)}`
const url = withDatabase(baseUrl, dbName)
const schemas = { main: 'app', auxiliary: 'app_aux' }

function withDatabase(u: string, name: string): string {
  const parsed = new URL(u)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

const server = new pg.Pool({ connectionString: baseUrl, max: 1 })
// NB: DROP DATABASE … WITH (FORCE) may end a connection the pool is still closing.
server.on('error', () => {})
let db: pg.Pool
let work: string

/** A svcbase-like main schema (its own tables) and an auxiliary one with a logs table. */
async function createSchemas(main = schemas.main, aux = schemas.auxiliary): Promise<void> {
  await db.query(`DROP SCHEMA IF EXISTS "${main}" CASCADE; DROP SCHEMA IF EXISTS "${aux}" CASCADE`)
  await db.query(`CREATE SCHEMA "${main}"; CREATE SCHEMA "${aux}"`)
  await db.query(`
    CREATE TABLE "${main}"._collections (id TEXT PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE "${main}"._params (id TEXT PRIMARY KEY, value JSONB);
    CREATE TABLE "${main}"._superusers (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE);
    CREATE TABLE "${main}".posts (id TEXT PRIMARY KEY, title TEXT NOT NULL, n BIGSERIAL);
    CREATE INDEX posts_title ON "${main}".posts (title);
    CREATE VIEW "${main}".titles AS SELECT title FROM "${main}".posts;
    CREATE TABLE "${aux}"._logs (id TEXT PRIMARY KEY, message TEXT NOT NULL);
    INSERT INTO "${main}"._collections VALUES ('c1', '_superusers'), ('c2', 'posts');
    INSERT INTO "${main}"._params VALUES ('settings', '{"a": 1}');
    INSERT INTO "${main}".posts (id, title) VALUES ('p1', 'first'), ('p2', 'second');
    INSERT INTO "${aux}"._logs VALUES ('l1', 'hello');
  `)
}

async function titles(schema = schemas.main): Promise<string[]> {
  const r = await db.query<{ title: string }>(`SELECT title FROM "${schema}".titles ORDER BY 1`)
  return r.rows.map((x) => x.title)
}

async function schemaNames(): Promise<string[]> {
  const r = await db.query<{ nspname: string }>(
    "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg_%' AND nspname <> 'information_schema' ORDER BY 1",
  )
  return r.rows.map((x) => x.nspname)
}

beforeAll(async () => {
  await server.query(`CREATE DATABASE ${dbName}`)
  db = new pg.Pool({ connectionString: url, max: 4 })
  db.on('error', () => {})
})

afterAll(async () => {
  await db?.end()
  await server.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
  await server.end()
})

beforeEach(async () => {
  await createSchemas()
  work = mkdtempSync(join(tmpdir(), 'svc-pg-snapshot-'))
  return () => rmSync(work, { recursive: true, force: true })
})

describe('backupPostgres', () => {
  it('writes one custom-format dump per schema, main first, that the check accepts', async () => {
    const paths = await backupPostgres({ url, schemas }, work)
    expect(paths).toEqual([join(work, 'data.pgdump'), join(work, 'auxiliary.pgdump')])
    expect(readdirSync(work).sort()).toEqual(['auxiliary.pgdump', 'data.pgdump'])
    await expect(checkPostgresSnapshot(work)).resolves.toBeUndefined()
  })

  it('takes both schemas from one snapshot while a writer changes both together', async () => {
    let stop = false
    let written = 0
    const writer = (async () => {
      while (!stop) {
        const c = await db.connect()
        try {
          await c.query('BEGIN')
          await c.query(`INSERT INTO app.posts (id, title) VALUES ($1, 'w')`, [`w${written}`])
          await c.query(`INSERT INTO app_aux._logs VALUES ($1, 'w')`, [`w${written}`])
          await c.query('COMMIT')
          written++
        } finally {
          c.release()
        }
      }
    })()
    try {
      await backupPostgres({ url, schemas }, work)
    } finally {
      stop = true
      await writer
    }
    const done = await restorePostgres({ url, schemas }, work)
    await done.done()
    const posts = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM app.posts WHERE title = 'w'",
    )
    const logs = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM app_aux._logs WHERE message = 'w'",
    )
    expect(posts.rows[0]!.n).toBe(logs.rows[0]!.n)
  })
})

describe('checkPostgresSnapshot', () => {
  it('refuses a SQLite backup naming both engines', async () => {
    writeFileSync(join(work, 'data.db'), 'SQLite format 3\0')
    const err = await checkPostgresSnapshot(work).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SnapshotEngineMismatch)
    expect((err as Error).message).toBe(
      'it is a SQLite backup and this server runs on PostgreSQL: a backup restores only into the engine it was taken on',
    )
  })

  it('refuses unexpected files, a missing main dump, unreadable and foreign dumps', async () => {
    await backupPostgres({ url, schemas }, work)
    writeFileSync(join(work, 'notes.txt'), 'x')
    await expect(checkPostgresSnapshot(work)).rejects.toThrow(
      'unexpected file "notes.txt" next to the databases',
    )
    rmSync(join(work, 'notes.txt'))
    rmSync(join(work, 'data.pgdump'))
    await expect(checkPostgresSnapshot(work)).rejects.toThrow('no data.pgdump in it')
    writeFileSync(join(work, 'data.pgdump'), 'PGDMP but not really')
    await expect(checkPostgresSnapshot(work)).rejects.toThrow(
      /^data\.pgdump: it is not a readable pg_dump archive/,
    )
    // A dump of a schema without svcbase's own tables.
    await db.query('DROP TABLE app._params')
    rmSync(work, { recursive: true, force: true })
    work = mkdtempSync(join(tmpdir(), 'svc-pg-snapshot-'))
    await backupPostgres({ url, schemas }, work)
    await expect(checkPostgresSnapshot(work)).rejects.toThrow(
      'data.pgdump: it is not a svcbase database (no _params table)',
    )
  })
})

describe('restorePostgres', () => {
  it('replaces the live schemas; done drops the old ones', async () => {
    await backupPostgres({ url, schemas }, work)
    await db.query(`UPDATE app.posts SET title = 'changed'; DELETE FROM app_aux._logs`)
    await db.query(`CREATE TABLE app.extra (x int)`)
    const before = await schemaNames()
    const plan = await restorePostgres({ url, schemas }, work)
    expect(await titles()).toEqual(['first', 'second'])
    const logs = await db.query('SELECT message FROM app_aux._logs')
    expect(logs.rows).toEqual([{ message: 'hello' }])
    const extra = await db.query("SELECT to_regclass('app.extra') AS t")
    expect(extra.rows[0].t).toBeNull()
    // The sequence goes on from where it was, the index is there.
    const next = await db.query<{ n: number }>(
      "INSERT INTO app.posts (id, title) VALUES ('p3', 'third') RETURNING n::int AS n",
    )
    expect(next.rows[0]!.n).toBe(3)
    const index = await db.query("SELECT to_regclass('app.posts_title') AS t")
    expect(index.rows[0].t).not.toBeNull()
    expect((await schemaNames()).length).toBe(before.length + 2)
    await plan.done()
    expect(await schemaNames()).toEqual(before)
  })

  it('undo puts the data in place before it back', async () => {
    await backupPostgres({ url, schemas }, work)
    await db.query(`UPDATE app.posts SET title = 'changed'`)
    const before = await schemaNames()
    const plan = await restorePostgres({ url, schemas }, work)
    expect(await titles()).toEqual(['first', 'second'])
    await plan.undo()
    expect(await titles()).toEqual(['changed', 'changed'])
    expect(await schemaNames()).toEqual(before)
  })

  it('restores a dump taken from another schema under the live name', async () => {
    await createSchemas('other', 'other_aux')
    await db.query(`UPDATE other.posts SET title = 'from other'`)
    await backupPostgres({ url, schemas: { main: 'other', auxiliary: 'other_aux' } }, work)
    await db.query('DROP SCHEMA other CASCADE; DROP SCHEMA other_aux CASCADE')
    const plan = await restorePostgres({ url, schemas }, work)
    await plan.done()
    expect(await titles()).toEqual(['from other', 'from other'])
    expect(await schemaNames()).not.toContain('other')
  })

  it('refuses a dump whose schema is another live one, and changes nothing', async () => {
    await createSchemas('other', 'other_aux')
    await backupPostgres({ url, schemas: { main: 'other', auxiliary: 'other_aux' } }, work)
    await createSchemas()
    await db.query(`UPDATE app.posts SET title = 'live'`)
    const before = await schemaNames()
    await expect(restorePostgres({ url, schemas }, work)).rejects.toThrow(
      "the backup's schema other exists already in the database: drop or rename it first",
    )
    expect(await titles()).toEqual(['live', 'live'])
    expect(await schemaNames()).toEqual(before)
  })

  it('is refused by the check, given the target, when its schema exists in the database', async () => {
    await createSchemas('other', 'other_aux')
    await backupPostgres({ url, schemas: { main: 'other', auxiliary: 'other_aux' } }, work)
    const before = await schemaNames()
    await expect(checkPostgresSnapshot(work, { url, schemas })).rejects.toThrow(
      "the backup's schema other exists already in the database: drop or rename it first",
    )
    expect(await schemaNames()).toEqual(before)
    // Without those schemas (or without a target) the same snapshot passes.
    await expect(checkPostgresSnapshot(work)).resolves.toBeUndefined()
    await db.query('DROP SCHEMA other CASCADE; DROP SCHEMA other_aux CASCADE')
    await expect(checkPostgresSnapshot(work, { url, schemas })).resolves.toBeUndefined()
    // A dump of the live schemas themselves is never refused for existing.
    const own = mkdtempSync(join(tmpdir(), 'svc-pg-snapshot-'))
    try {
      await backupPostgres({ url, schemas }, own)
      await expect(checkPostgresSnapshot(own, { url, schemas })).resolves.toBeUndefined()
    } finally {
      rmSync(own, { recursive: true, force: true })
    }
  })

  it('puts everything back when pg_restore fails half-way', async () => {
    await backupPostgres({ url, schemas }, work)
    // A damaged auxiliary dump: the main one restores, then the auxiliary one fails.
    writeFileSync(join(work, 'auxiliary.pgdump'), 'PGDMP damaged')
    await db.query(`UPDATE app.posts SET title = 'live'`)
    const before = await schemaNames()
    await expect(restorePostgres({ url, schemas }, work)).rejects.toThrow(/pg_restore failed/)
    expect(await titles()).toEqual(['live', 'live'])
    expect(await schemaNames()).toEqual(before)
  })
})
