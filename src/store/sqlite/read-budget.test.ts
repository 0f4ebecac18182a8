import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ReadTimeout } from '../db.js'
import { sql } from '../sql.js'
import { EVENT_LOOP_SLICE_MS, SqliteDb } from './database.js'

/** A cross join of `n`³ rows: slow enough to overrun any slice, as long as wanted. */
const slowCount = (n: number) =>
  sql`SELECT count(*) AS c FROM t a, t b, t c WHERE a.x <= ${n} AND b.x <= ${n} AND c.x <= ${n}`

let dir: string
let db: SqliteDb

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-budget-'))
  db = new SqliteDb(join(dir, 'data.db'))
  await db.transaction(async (tx) => {
    await tx.run(sql`CREATE TABLE t (x INTEGER PRIMARY KEY, b BLOB)`)
    await tx.run(
      sql`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO t SELECT i, randomblob(8) FROM c`,
    )
  })
})

afterEach(async () => {
  await db.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the read budget on SQLite', () => {
  it('moves a read that overruns the slice to a reader thread, with the same answer', async () => {
    const started = performance.now()
    let longestTurn = 0
    let last = performance.now()
    const ticker = setInterval(() => {
      const now = performance.now()
      longestTurn = Math.max(longestTurn, now - last)
      last = now
    }, 5)
    // 300³ = 27 M rows: far beyond the slice.
    const row = await db.get<{ c: number }>(slowCount(300))
    clearInterval(ticker)
    expect(row).toEqual({ c: 27_000_000 })
    expect(performance.now() - started).toBeGreaterThan(EVENT_LOOP_SLICE_MS)
    // The event loop went on meanwhile (the slice, then the timer's own 5 ms, with margin).
    expect(longestTurn).toBeLessThan(150)
  })

  it('gives BLOBs back as Buffers from a reader thread', async () => {
    await db.get(slowCount(300)) // remembered as slow: its next run goes to a thread at once
    const fast = await db.all<{ x: number; b: Buffer }>(sql`SELECT x, b FROM t WHERE x <= 3`)
    const slow = await db.all<{ x: number; b: Buffer; c: number }>(
      sql`SELECT t.x, t.b, (SELECT count(*) FROM t a, t b2, t c WHERE a.x <= 300 AND b2.x <= 300 AND c.x <= 300) AS c FROM t WHERE t.x <= 3`,
    )
    expect(slow.map((r) => Buffer.isBuffer(r.b))).toEqual([true, true, true])
    expect(slow.map((r) => r.b.toString('hex'))).toEqual(fast.map((r) => r.b.toString('hex')))
  })

  it('stops a read at the budget with a ReadTimeout', async () => {
    db.setReadBudget(200)
    const started = performance.now()
    const err = await db.get(slowCount(2000)).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ReadTimeout)
    expect((err as ReadTimeout).budgetMs).toBe(200)
    // Far below the minutes the read would take (starting the reader thread included, which
    // takes seconds on a loaded machine).
    expect(performance.now() - started).toBeLessThan(15_000)
    // The connection and the threads still serve.
    expect(await db.get(sql`SELECT count(*) AS n FROM t`)).toEqual({ n: 2000 })
  })

  it('bounds the synchronous reads of hook scripts by the budget', () => {
    db.setReadBudget(150)
    expect(() => db.getSync(slowCount(2000))).toThrow(ReadTimeout)
    expect(db.getSync(sql`SELECT count(*) AS n FROM t`)).toEqual({ n: 2000 })
  })

  it('stops a read of a limited write transaction without touching its writes', async () => {
    const err = await db
      .transaction(async (tx) => {
        await tx.run(sql`INSERT INTO t (x) VALUES (5000)`)
        tx.limitReads?.(50)
        await tx.get(slowCount(2000))
      })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ReadTimeout)
    // Rolled back as a whole, and the writer has no limit afterwards.
    expect(await db.get(sql`SELECT count(*) AS n FROM t WHERE x = 5000`)).toEqual({ n: 0 })
    await db.transaction(async (tx) => {
      const row = await tx.get<{ c: number }>(slowCount(200))
      expect(row).toEqual({ c: 8_000_000 })
    })
  })
})

describe('the svc_budget extension', () => {
  it('stops a statement at its own limit while another connection has a later deadline', async () => {
    const { openConnection } = await import('./connection.js')
    const file = join(dir, 'data.db')
    const long = openConnection(file, 1000, true, undefined, 5_000)
    const short = openConnection(file, 1000, true, undefined, 100)
    try {
      const query = (n: number) =>
        `SELECT count(*) AS c FROM t a, t b, t c WHERE a.x <= ${n} AND b.x <= ${n} AND c.x <= ${n}`
      // The watchdog sleeps until this one's 5 s deadline; the read ends long before it.
      expect(long.prepare(query(200)).get()).toEqual({ c: 8_000_000 })
      const started = performance.now()
      expect(() => short.prepare(query(2000)).get()).toThrow(/interrupted/)
      // Stopped near its own 100 ms, not when the watchdog next woke for the other deadline.
      expect(performance.now() - started).toBeLessThan(2_500)
    } finally {
      long.close()
      short.close()
    }
  })
})

describe('what the svc_budget limit counts', () => {
  it('the time a statement runs, not time its thread waits (up to four times the limit)', async () => {
    const { openConnection } = await import('./connection.js')
    const conn = openConnection(join(dir, 'data.db'), 1000, true, undefined, 100)
    // A function that blocks the thread without using the CPU, as a descheduled thread does.
    const pause = new Int32Array(new SharedArrayBuffer(4))
    conn.function('svc_test_wait', (ms: unknown) => Atomics.wait(pause, 0, 0, Number(ms)))
    try {
      // 4 × 50 ms waiting, 200 ms in all: past the 100 ms limit, but the thread hardly ran.
      const waited = conn.prepare('SELECT svc_test_wait(50) AS w FROM t WHERE x <= 4').all()
      expect(waited).toHaveLength(4)
      // 10 × 50 ms: past four times the limit, stopped whatever the thread did.
      expect(() => conn.prepare('SELECT svc_test_wait(50) FROM t WHERE x <= 10').all()).toThrow(
        /interrupted/,
      )
      // Running all along: stopped at the limit.
      const started = performance.now()
      expect(() =>
        conn.prepare('SELECT count(*) FROM t a, t b, t c WHERE a.x <= 2000 AND b.x <= 2000').get(),
      ).toThrow(/interrupted/)
      expect(performance.now() - started).toBeLessThan(400)
    } finally {
      conn.close()
    }
  })
})
