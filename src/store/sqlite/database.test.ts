import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { UniqueViolation } from '../db.js'
import { sql } from '../sql.js'
import { SqliteDb } from './database.js'

describe('SqliteDb', () => {
  let dir: string
  let db: SqliteDb
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-db-'))
    db = new SqliteDb(join(dir, 'data.db'))
    await db.run(sql`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, u TEXT UNIQUE)`)
  })
  afterEach(async () => {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('uses WAL and foreign keys', async () => {
    expect(await db.get(sql`PRAGMA journal_mode`)).toEqual({ journal_mode: 'wal' })
    expect(await db.get(sql`PRAGMA foreign_keys`)).toEqual({ foreign_keys: 1 })
  })

  it('rolls a failed transaction back entirely', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO t (id, n) VALUES (${'a'}, ${1})`)
        throw new Error('fail')
      }),
    ).rejects.toThrow('fail')
    expect(await db.all(sql`SELECT * FROM t`)).toEqual([])
  })

  it('never interleaves two transactions, even across awaits', async () => {
    await db.run(sql`INSERT INTO t (id, n) VALUES ('c', 0)`)
    const bump = () =>
      db.transaction(async (tx) => {
        const row = await tx.get<{ n: number }>(sql`SELECT n FROM t WHERE id = 'c'`)
        await new Promise((r) => setTimeout(r, 1))
        await tx.run(sql`UPDATE t SET n = ${(row?.n ?? 0) + 1} WHERE id = 'c'`)
      })
    await Promise.all(Array.from({ length: 50 }, bump))
    expect(await db.get(sql`SELECT n FROM t WHERE id = 'c'`)).toEqual({ n: 50 })
  })

  it('hides uncommitted writes from reads outside the transaction', async () => {
    let seenOutside: unknown[] = ['unset']
    await db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO t (id, n) VALUES ('x', 1)`)
      seenOutside = await db.all(sql`SELECT * FROM t`)
    })
    expect(seenOutside).toEqual([])
    expect(await db.all(sql`SELECT id FROM t`)).toEqual([{ id: 'x' }])
  })

  it('translates unique violations', async () => {
    await db.run(sql`INSERT INTO t (id, u) VALUES ('1', 'same')`)
    const err = await db
      .run(sql`INSERT INTO t (id, u) VALUES ('2', 'same')`)
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UniqueViolation)
    expect((err as UniqueViolation).columns).toEqual(['u'])
    expect((err as UniqueViolation).table).toBe('t')
  })

  it('binds booleans and describes queries', async () => {
    await db.run(sql`INSERT INTO t (id, n) VALUES ('b', ${true})`)
    expect(await db.get(sql`SELECT n FROM t WHERE id = 'b'`)).toEqual({ n: 1 })
    const cols = await db.describe(sql`SELECT id, n AS num FROM t`)
    expect(cols.map((c) => [c.name, c.table, c.column])).toEqual([
      ['id', 't', 'id'],
      ['num', 't', 'n'],
    ])
    await expect(db.describe(sql`SELECT 1; SELECT 2`)).rejects.toThrow()
  })
})
