import Database from 'better-sqlite3'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Db } from '../db.js'
import { sql } from '../sql.js'
import type { Store } from '../store.js'
import { sqliteDialect } from './sqlite-dialect.js'
import { createSqliteStore } from './sqlite-store.js'

/** Reads a snapshot file with a connection of its own, as a restore or an operator would. */
function readSnapshot<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

const count = (db: Database.Database, table: string) =>
  (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n

/** Inserts pairs of rows, one transaction per pair, until `stop` is called; counts the commits. */
function keepWriting(db: Db) {
  let running = true
  let committed = 0
  const done = (async () => {
    while (running) {
      await db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO w (pair, half) VALUES (${committed}, 'a')`)
        await tx.run(sql`INSERT INTO w (pair, half) VALUES (${committed}, 'b')`)
      })
      committed++
    }
  })()
  return {
    get committed() {
      return committed
    },
    stop: async () => {
      running = false
      await done
    },
  }
}

describe('the SQLite store', () => {
  let dir: string
  let store: Store
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-store-'))
    store = createSqliteStore({ dir: join(dir, 'data') })
  })
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('opens both databases in its folder, with its dialect', async () => {
    expect(store.isOpen).toBe(false)
    expect(() => store.database('main')).toThrow('the store is not open')
    await store.open()
    expect(store.isOpen).toBe(true)
    expect(existsSync(join(dir, 'data', 'data.db'))).toBe(true)
    expect(existsSync(join(dir, 'data', 'auxiliary.db'))).toBe(true)
    expect(store.dialect).toBe(sqliteDialect)
    expect(store.database('main').dialect).toBe(store.dialect)
    expect(store.database('auxiliary')).not.toBe(store.database('main'))
    await expect(store.open()).rejects.toThrow('the store is open already')
  })

  it('migrates idempotently, keeping rows across migrations and reopenings', async () => {
    await store.open()
    await store.migrate()
    const main = store.database('main')
    await main.run(sql`INSERT INTO _params (id, value) VALUES ('k', '"v"')`)
    await store.migrate()
    await store.close()
    await store.close()
    expect(store.isOpen).toBe(false)
    await store.open()
    await store.migrate()
    const tables = await store
      .database('main')
      .all(sql`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
    expect(tables).toEqual([{ name: '_collections' }, { name: '_migrations' }, { name: '_params' }])
    expect(await store.database('main').all(sql`SELECT id, value FROM _params`)).toEqual([
      { id: 'k', value: '"v"' },
    ])
    // The auxiliary database has no system tables: its tables are collections'.
    expect(await store.database('auxiliary').all(sql`SELECT name FROM sqlite_master`)).toEqual([])
  })

  it('backs up a consistent snapshot of each database while writers keep writing', async () => {
    await store.open()
    await store.migrate()
    const main = store.database('main')
    const aux = store.database('auxiliary')
    for (const db of [main, aux]) {
      await db.run(sql`CREATE TABLE w (pair INTEGER NOT NULL, half TEXT NOT NULL)`)
      // About a megabyte, so a copy takes many pages.
      await db.transaction(async (tx) => {
        for (let i = 0; i < 1000; i++) {
          await tx.run(sql`INSERT INTO w (pair, half) VALUES (${-1 - i}, ${'x'.repeat(1000)})`)
        }
      })
    }
    const writers = [keepWriting(main), keepWriting(aux)]
    // Let both writers commit something before the snapshot starts.
    while (writers.some((w) => w.committed < 5)) await new Promise((r) => setImmediate(r))
    const before = writers.map((w) => w.committed)
    const target = join(dir, 'backup')
    mkdirSync(target)
    const paths = await store.backup(target)
    const after = writers.map((w) => w.committed)
    await Promise.all(writers.map((w) => w.stop()))

    expect(paths).toEqual([join(target, 'data.db'), join(target, 'auxiliary.db')])
    for (const [i, file] of paths.entries()) {
      readSnapshot(file, (db) => {
        expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }])
        const pairs = (count(db, 'w') - 1000) / 2
        // Every transaction whole (no half pair), none lost before the snapshot began, none
        // counted that had not committed when it ended.
        expect(Number.isInteger(pairs)).toBe(true)
        const halves = db
          .prepare('SELECT pair FROM w WHERE pair >= 0 GROUP BY pair HAVING COUNT(*) <> 2')
          .all()
        expect(halves).toEqual([])
        expect(pairs).toBeGreaterThanOrEqual(before[i]!)
        expect(pairs).toBeLessThanOrEqual(after[i]!)
      })
    }
    readSnapshot(paths[0]!, (db) => expect(count(db, '_collections')).toBe(0))
  })

  it('leaves uncommitted work out of the snapshot', async () => {
    await store.open()
    await store.migrate()
    const main = store.database('main')
    await main.run(sql`INSERT INTO _params (id) VALUES ('committed')`)
    const target = join(dir, 'backup')
    mkdirSync(target)
    await main.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO _params (id) VALUES ('pending')`)
      await store.backup(target)
    })
    readSnapshot(join(target, 'data.db'), (db) => {
      expect(db.prepare('SELECT id FROM _params').all()).toEqual([{ id: 'committed' }])
    })
  })

  it('refuses to back up over existing files, or while closed', async () => {
    await store.open()
    const target = join(dir, 'backup')
    mkdirSync(target)
    await store.backup(target)
    await expect(store.backup(target)).rejects.toThrow(/snapshot of .*data\.db failed/)
    await store.close()
    await expect(store.backup(join(dir, 'other'))).rejects.toThrow('the store is not open')
  })
})
