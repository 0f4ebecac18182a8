import Database from 'better-sqlite3'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ConsoleRefused } from '../console.js'
import { sql } from '../sql.js'
import type { Store } from '../store.js'
import { createSqliteStore } from './sqlite-store.js'

const limits = {
  maxRows: 500,
  maxBytes: 1024,
  timeoutMs: 5000,
  frozenSchema: ['kept'],
  readOnlyTables: ['_params'],
}

describe('SQLite store: optimize and console', () => {
  let dir: string
  let store: Store
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const open = async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-console-'))
    store = createSqliteStore({ dir })
    await store.open()
    await store.migrate()
  }

  it('optimize checkpoints and empties the WAL of every database', async () => {
    await open()
    for (const name of ['main', 'auxiliary'] as const) {
      const db = store.database(name)
      await db.run(sql`CREATE TABLE t (v TEXT)`)
      for (let i = 0; i < 50; i++) await db.run(sql`INSERT INTO t VALUES (${'x'.repeat(2000)})`)
    }
    expect(statSync(join(dir, 'data.db-wal')).size).toBeGreaterThan(0)
    expect(statSync(join(dir, 'auxiliary.db-wal')).size).toBeGreaterThan(0)
    await store.optimize()
    expect(statSync(join(dir, 'data.db-wal')).size).toBe(0)
    expect(statSync(join(dir, 'auxiliary.db-wal')).size).toBe(0)
    const row = await store
      .database('auxiliary')
      .get<{ n: number }>(sql`SELECT count(*) AS n FROM t`)
    expect(row?.n).toBe(50)
  })

  it('optimize never waits for a reader on an older snapshot', async () => {
    await open()
    const db = store.database('main')
    await db.run(sql`CREATE TABLE t (v TEXT)`)
    await db.run(sql`INSERT INTO t VALUES ('a')`)
    const reader = new Database(join(dir, 'data.db'), { readonly: true })
    try {
      reader.exec('BEGIN')
      reader.prepare('SELECT count(*) FROM t').get()
      for (let i = 0; i < 20; i++) await db.run(sql`INSERT INTO t VALUES (${'x'.repeat(2000)})`)
      const started = Date.now()
      await store.optimize()
      expect(Date.now() - started).toBeLessThan(1000)
      expect(statSync(join(dir, 'data.db-wal')).size).toBeGreaterThan(0)
      reader.exec('COMMIT')
    } finally {
      reader.close()
    }
    await store.optimize()
    expect(statSync(join(dir, 'data.db-wal')).size).toBe(0)
  })

  it('cuts a read at maxBytes of row values, and reports whether the schema changed', async () => {
    await open()
    const read = await store.console({
      ...limits,
      sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100) SELECT printf('%040d', x) AS v FROM c",
      write: false,
    })
    expect(read.kind === 'read' && read.truncated).toBe(true)
    // Each row is {"v":"<40 digits>"}: 48 bytes; 21 of them fit in 1024.
    expect(read.kind === 'read' && read.rows.length).toBe(21)
    await expect(
      store.console({ ...limits, sql: 'CREATE TABLE kept (a)', write: true }),
    ).rejects.toBeInstanceOf(ConsoleRefused)
    const created = await store.console({
      ...limits,
      frozenSchema: [],
      sql: 'CREATE TABLE kept (a)',
      write: true,
    })
    expect(created).toEqual({ kind: 'write', rowsAffected: 0, schemaChanged: true })
    await expect(
      store.console({ ...limits, sql: 'ALTER TABLE kept ADD COLUMN b', write: true }),
    ).rejects.toBeInstanceOf(ConsoleRefused)
    const inserted = await store.console({
      ...limits,
      sql: 'INSERT INTO kept VALUES (1)',
      write: true,
    })
    expect(inserted).toEqual({ kind: 'write', rowsAffected: 1, schemaChanged: false })
  })
})
