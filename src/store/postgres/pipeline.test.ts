/**
 * Writes a PostgreSQL transaction sends later (`runLater`), against a real server
 * (`SVC_TEST_PG_URL`, started by the test setup) in a database of this file's own: they go with
 * the transaction's next statement or its COMMIT in the same round trip, in order, with their
 * parameters; every later statement sees them, synchronous reads included; a failing one fails
 * the transaction whole, and so does one that had to write a row and wrote none
 * (`NoRowWritten`); a transaction that fails first never sends them.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { NoRowWritten, UniqueViolation, type Db } from '../db.js'
import { sql } from '../sql.js'
import { PgSyncDb } from './sync-reads.js'

const baseUrl = process.env.SVC_TEST_PG_URL
if (!baseUrl)
  throw new Error('SVC_TEST_PG_URL is not set: the PostgreSQL tests need the test setup')
const dbName = `svc_pipe_${Math.random().toString(36).slice(2, 10)}`
const parsed = new URL(baseUrl)
parsed.pathname = `/${dbName}`
const url = parsed.toString()

const server = new pg.Pool({ connectionString: baseUrl, max: 1 })
server.on('error', () => {})
let db: PgSyncDb

beforeAll(async () => {
  await server.query(`CREATE DATABASE ${dbName}`)
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query('CREATE SCHEMA app')
  await admin.end()
  db = new PgSyncDb({ url, schema: 'app' })
  await db.run(sql`CREATE TABLE rows (id TEXT PRIMARY KEY, n DOUBLE PRECISION, flag BOOLEAN,
    doc JSON, bytes BYTEA)`)
})

afterAll(async () => {
  await db?.close()
  await server.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
  await server.end()
})

/** Runs `fn` counting the round trips (`Client.query` calls) it makes. */
async function counted<T>(fn: () => Promise<T>): Promise<{ value: T; trips: number }> {
  const spy = vi.spyOn(pg.Client.prototype, 'query')
  try {
    const value = await fn()
    return { value, trips: spy.mock.calls.length }
  } finally {
    spy.mockRestore()
  }
}

const insert = (id: string, n: number | null = 1) =>
  sql`INSERT INTO rows (id, n, flag, doc, bytes) VALUES (${id}, ${n}, ${true}, ${'{"a": [1]}'}, ${Buffer.from([0, 255])})`
const ids = async (prefix: string) =>
  (
    await db.all<{ id: string }>(sql`SELECT id FROM rows WHERE id LIKE ${`${prefix}%`} ORDER BY id`)
  ).map((r) => r.id)
const later = (tx: Db, q: ReturnType<typeof insert>) => {
  if (!tx.runLater) throw new Error('a PostgreSQL transaction has runLater')
  tx.runLater(q)
}

describe('runLater', () => {
  it('sends the writes with the next statement, in order, which sees them', async () => {
    const { value, trips } = await counted(() =>
      db.transaction(async (tx) => {
        later(tx, insert('a1'))
        later(tx, insert('a2', null))
        const seen = await tx.all<{ id: string; n: number | null; bytes: Buffer }>(
          sql`SELECT id, n, bytes FROM rows WHERE id LIKE 'a%' ORDER BY id`,
        )
        later(tx, insert('a3'))
        return seen
      }),
    )
    expect(value).toEqual([
      { id: 'a1', n: 1, bytes: Buffer.from([0, 255]) },
      { id: 'a2', n: null, bytes: Buffer.from([0, 255]) },
    ])
    // BEGIN + a1 + a2 + the read; a3 + COMMIT.
    expect(trips).toBe(2)
    expect(await ids('a')).toEqual(['a1', 'a2', 'a3'])
  })

  it('a transaction of writes sent later only costs one round trip', async () => {
    const { trips } = await counted(() =>
      db.transaction(async (tx) => {
        later(tx, insert('b1'))
        later(tx, insert('b2'))
      }),
    )
    expect(trips).toBe(1)
    expect(await ids('b')).toEqual(['b1', 'b2'])
  })

  it('a failing write fails the whole transaction at its commit', async () => {
    await db.run(insert('c0'))
    const err = await db
      .transaction(async (tx) => {
        await tx.run(insert('c1'))
        later(tx, insert('c2'))
        later(tx, insert('c0')) // a duplicate key
      })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UniqueViolation)
    expect(await ids('c')).toEqual(['c0'])
    // The connection went back to the pool usable.
    expect(await db.get(sql`SELECT 1 AS one`)).toEqual({ one: 1 })
  })

  it('a failing write fails the statement it went with', async () => {
    await db.run(insert('d0'))
    const err = await db
      .transaction(async (tx) => {
        later(tx, insert('d0'))
        await tx.all(sql`SELECT 1`)
      })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UniqueViolation)
    expect(await ids('d')).toEqual(['d0'])
  })

  it('a transaction that fails before sending them sends nothing', async () => {
    const { value, trips } = await counted(() =>
      db
        .transaction(async (tx) => {
          later(tx, insert('e1'))
          throw new Error('refused')
        })
        .catch((e: unknown) => (e as Error).message),
    )
    expect(value).toBe('refused')
    expect(trips).toBe(0)
    expect(await ids('e')).toEqual([])
  })

  it('mustWrite: a write of no row fails the transaction with NoRowWritten', async () => {
    const guarded = (id: string, when: string) =>
      sql`INSERT INTO rows (id) SELECT ${id} WHERE EXISTS (SELECT 1 FROM rows WHERE id = ${when})`
    await db.run(insert('g0'))
    const { trips } = await counted(() =>
      db.transaction(async (tx) => {
        tx.runLater!(guarded('g1', 'g0'), { mustWrite: true })
        tx.runLater!(guarded('g2', 'g1'), { mustWrite: true })
      }),
    )
    expect(trips).toBe(1)
    expect(await ids('g')).toEqual(['g0', 'g1', 'g2'])
    for (const read of [false, true]) {
      const err = await db
        .transaction(async (tx) => {
          later(tx, insert(`h${String(read)}`))
          tx.runLater!(guarded('h9', 'nothing'), { mustWrite: true })
          if (read) await tx.all(sql`SELECT 1`)
        })
        .catch((e: unknown) => e)
      expect(err).toBeInstanceOf(NoRowWritten)
    }
    expect(await ids('h')).toEqual([])
  })

  it('synchronous reads see the writes waiting, before and after BEGIN was sent', async () => {
    const seen = await db.transaction(async (tx) => {
      later(tx, insert('f1'))
      const first = tx.allSync!<{ id: string }>(sql`SELECT id FROM rows WHERE id LIKE 'f%'`)
      later(tx, insert('f2'))
      const second = tx.allSync!<{ id: string }>(sql`SELECT id FROM rows WHERE id LIKE 'f%'`)
      const third = await tx.all<{ id: string }>(sql`SELECT id FROM rows WHERE id LIKE 'f%'`)
      return [first, second, third].map((rows) => rows.map((r) => r.id).sort())
    })
    expect(seen).toEqual([['f1'], ['f1', 'f2'], ['f1', 'f2']])
    expect(await ids('f')).toEqual(['f1', 'f2'])
  })
})
