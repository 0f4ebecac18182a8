/**
 * Named prepared statements on PostgreSQL (`prepared.ts`), against a real server
 * (`SVC_TEST_PG_URL`, started by the test setup) in a database of this file's own: a statement
 * run again is prepared on its connection (the server lists it in `pg_prepared_statements`);
 * a connection keeps at most `MAX_PER_CONNECTION`; a round trip that failed leaves nothing a
 * later one trips over; a table changed under a prepared statement, by this process or another
 * one, answers with the new columns, inside a transaction too; and with `prepared: false`
 * nothing is prepared.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UniqueViolation } from '../db.js'
import { raw, sql, type Sql } from '../sql.js'
import { PgDb } from './database.js'
import { MAX_PER_CONNECTION } from './prepared.js'

const baseUrl = process.env.SVC_TEST_PG_URL
if (!baseUrl)
  throw new Error('SVC_TEST_PG_URL is not set: the PostgreSQL tests need the test setup')
const dbName = `svc_prep_${Math.random().toString(36).slice(2, 10)}`
const parsed = new URL(baseUrl)
parsed.pathname = `/${dbName}`
const url = parsed.toString()

const server = new pg.Pool({ connectionString: baseUrl, max: 1 })
server.on('error', () => {})
/** Another instance's connection to the same schema. */
let other: pg.Client
const dbs: PgDb[] = []

/** A handle with one connection, so every statement runs on the same one. */
function open(prepared = true): PgDb {
  const db = new PgDb({ url, schema: 'app', max: 1, prepared })
  dbs.push(db)
  return db
}

/** The statements the handle's one connection has prepared, as the server lists them. */
async function onServer(db: PgDb): Promise<string[]> {
  const rows = await db.all<{ name: string }>(
    sql`SELECT name FROM pg_prepared_statements ORDER BY name`,
  )
  return rows.map((r) => r.name)
}

beforeAll(async () => {
  await server.query(`CREATE DATABASE ${dbName}`)
  other = new pg.Client({ connectionString: url })
  await other.connect()
  await other.query('CREATE SCHEMA app')
  await other.query('SET search_path = app')
  await other.query('CREATE TABLE items (id TEXT PRIMARY KEY, n INTEGER)')
  await other.query(`INSERT INTO items VALUES ('a', 1), ('b', 2)`)
})

afterAll(async () => {
  for (const db of dbs) await db.close()
  await other?.end()
  await server.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
  await server.end()
})

const byId = (id: string): Sql => sql`SELECT * FROM items WHERE id = ${id}`

describe('prepared statements', () => {
  it('prepares a statement from its second run on, on the server', async () => {
    const db = open()
    expect(await db.get(byId('a'))).toEqual({ id: 'a', n: 1 })
    expect(await onServer(db)).toEqual([])
    expect(await db.get(byId('b'))).toEqual({ id: 'b', n: 2 })
    const [name] = await onServer(db)
    expect(name).toMatch(/^svc_p\d+$/)
    // Run again: by its name, so the server still has the one statement, and answers.
    expect(await db.get(byId('a'))).toEqual({ id: 'a', n: 1 })
    expect((await onServer(db)).filter((n) => n === name)).toHaveLength(1)
  })

  it(`keeps at most ${MAX_PER_CONNECTION} on a connection, closing the least recently used`, async () => {
    const db = open()
    // NB: each text differs by its literal, so each is a statement of its own.
    const literal = (i: number): Sql =>
      sql`SELECT n AS m, ${raw(String(i))} AS i FROM items WHERE id = ${'a'}`
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < MAX_PER_CONNECTION + 20; i++) await db.get(literal(i))
    }
    const names = await onServer(db)
    expect(names.length).toBeGreaterThan(MAX_PER_CONNECTION / 2)
    expect(names.length).toBeLessThanOrEqual(MAX_PER_CONNECTION)
    // Every statement still answers, those closed prepared again.
    for (let i = 0; i < MAX_PER_CONNECTION + 20; i++) {
      expect(await db.get(literal(i))).toEqual({ m: 1, i })
    }
  })

  it('a failed round trip leaves nothing the next one trips over', async () => {
    const db = open()
    const insert = (id: string) => sql`INSERT INTO items (id, n) VALUES (${id}, ${9})`
    await db.run(insert('f1'))
    // The second run prepares the INSERT in the same round trip that fails (a duplicate key):
    // whether the server kept it or not, the next runs must not fail for it.
    for (let i = 0; i < 3; i++) {
      const err = await db
        .transaction(async (tx) => {
          tx.runLater!(insert(`f${i + 2}`))
          await tx.run(insert('f1'))
        })
        .catch((e: unknown) => e)
      expect(err).toBeInstanceOf(UniqueViolation)
    }
    await db.run(insert('f5'))
    await db.run(insert('f6'))
    expect(
      (await db.all<{ id: string }>(sql`SELECT id FROM items WHERE id LIKE 'f%' ORDER BY id`)).map(
        (r) => r.id,
      ),
    ).toEqual(['f1', 'f5', 'f6'])
  })

  it('answers with the new columns after another instance changed the table', async () => {
    const db = open()
    await other.query('CREATE TABLE wide (id TEXT PRIMARY KEY, a INTEGER)')
    await other.query(`INSERT INTO wide VALUES ('x', 1)`)
    const row = (id: string) => sql`SELECT * FROM wide WHERE id = ${id}`
    await db.get(row('x'))
    await db.get(row('x'))
    expect(await onServer(db)).toHaveLength(1)
    await other.query('ALTER TABLE wide ADD COLUMN b TEXT')
    expect(await db.get(row('x'))).toEqual({ id: 'x', a: 1, b: null })
    // Inside a transaction: the attempt runs again.
    await other.query('ALTER TABLE wide ADD COLUMN c TEXT')
    const seen = await db.transaction((tx) => tx.get(row('x')))
    expect(seen).toEqual({ id: 'x', a: 1, b: null, c: null })
  })

  it('after a schema change of its own, runs no statement it prepared before', async () => {
    const db = open()
    await db.run(sql`CREATE TABLE mine (id TEXT PRIMARY KEY, a INTEGER)`)
    const row = sql`SELECT * FROM mine WHERE id <> ${''}`
    await db.all(row)
    await db.all(row)
    expect(await onServer(db)).toHaveLength(1)
    await db.run(sql`ALTER TABLE mine ALTER COLUMN a TYPE TEXT`)
    db.resetStatements()
    await db.run(sql`INSERT INTO mine VALUES (${'m'}, ${'text now'})`)
    expect(await db.all(row)).toEqual([{ id: 'm', a: 'text now' }])
  })

  it('prepares nothing when turned off', async () => {
    const db = open(false)
    for (let i = 0; i < 3; i++) await db.get(byId('a'))
    expect(await onServer(db)).toEqual([])
  })

  it('a value that cannot be sent fails its query with nothing of it run', async () => {
    const db = open()
    const bad = {
      toPostgres: () => {
        throw new Error('cannot send this')
      },
    }
    const err = await db
      .transaction(async (tx) => {
        tx.runLater!(sql`INSERT INTO items (id, n) VALUES (${'v1'}, ${1})`)
        await tx.run(sql`INSERT INTO items (id, n) VALUES (${'v2'}, ${bad})`)
      })
      .catch((e: unknown) => e)
    expect(String(err)).toMatch(/cannot send this/)
    expect(await db.all(sql`SELECT id FROM items WHERE id LIKE 'v%'`)).toEqual([])
    expect(await db.get(byId('b'))).toEqual({ id: 'b', n: 2 })
  })
})
