import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sql } from '../sql.js'
import { BACKSTOP_PAGES } from './checkpoints.js'
import { SqliteDb } from './database.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('WAL checkpoints', () => {
  let dir: string
  let file: string
  let db: SqliteDb
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-ckpt-'))
    file = join(dir, 'data.db')
    db = new SqliteDb(file)
    await db.run(sql`CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)`)
  })
  afterEach(async () => {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const autocheckpoint = () => {
    const conn = (db as unknown as { writer: { conn: Database.Database } }).writer.conn
    return conn.pragma('wal_autocheckpoint', { simple: true })
  }

  it('leaves a quiet database to SQLite and starts no thread', async () => {
    for (let i = 0; i < 20; i++) await db.run(sql`INSERT INTO t (body) VALUES (${'x'.repeat(100)})`)
    expect(db.checkpoints.offloaded).toBe(false)
    expect(autocheckpoint()).toBe(1000)
  })

  it('moves the checkpoints of a busy writer to a worker, which copies the WAL into the file', async () => {
    const body = 'y'.repeat(3000)
    for (let i = 0; i < 400; i++) {
      await db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO t (body) VALUES (${body})`)
      })
    }
    expect(db.checkpoints.offloaded).toBe(true)
    expect(autocheckpoint()).toBe(BACKSTOP_PAGES)
    for (let i = 0; i < 50 && db.checkpoints.ran === 0; i++) await sleep(50)
    expect(db.checkpoints.ran).toBeGreaterThan(0)
    // The pages reached the database file itself, not only the WAL (the writer alone would not
    // have checkpointed yet: 400 rows are ~300 pages, under SQLite's 1000).
    expect(statSync(file).size).toBeGreaterThan(400 * 3000)
    // Every row is there for another connection.
    const other = new Database(file, { readonly: true })
    try {
      expect(other.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 400 })
    } finally {
      other.close()
    }
  })

  it('empties the WAL file once the writes of a busy writer pause', async () => {
    const body = 'z'.repeat(3000)
    for (let i = 0; i < 400; i++) {
      await db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO t (body) VALUES (${body})`)
      })
    }
    expect(db.checkpoints.offloaded).toBe(true)
    // 400 commits of a 3 KB row left more than a megabyte of WAL behind.
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(1_000_000)
    for (let i = 0; i < 100 && db.checkpoints.truncated === 0; i++) await sleep(50)
    expect(db.checkpoints.truncated).toBeGreaterThan(0)
    expect(statSync(`${file}-wal`).size).toBe(0)
    // Nothing was lost, and writing goes on.
    await db.run(sql`INSERT INTO t (body) VALUES (${'after'})`)
    const other = new Database(file, { readonly: true })
    try {
      expect(other.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 401 })
    } finally {
      other.close()
    }
  })
})
