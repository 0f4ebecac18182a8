/**
 * The store's optional synchronous reads (`Db.allSync`/`getSync`) that PocketBase-style
 * `*.pb.js` finds rely on: the SQLite store offers them; outside a transaction they read
 * committed data only, and a transaction's handle reads its own uncommitted work.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DbError } from '../src/store/db.js'
import { createSqliteStore, type Store } from '../src/store/index.js'
import { sql } from '../src/store/sql.js'

describe('synchronous reads of the SQLite store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-syncreads-'))
  let store: Store

  beforeAll(async () => {
    store = createSqliteStore({ dir })
    await store.open()
    await store.database('main').run(sql`CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT)`)
    await store.database('main').run(sql`INSERT INTO notes VALUES (${'a'}, ${'first'})`)
  })
  afterAll(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers at once with the same rows as the asynchronous reads', async () => {
    const db = store.database('main')
    const q = sql`SELECT id, body FROM notes ORDER BY id`
    expect(db.allSync?.(q)).toEqual(await db.all(q))
    expect(db.getSync?.(sql`SELECT body FROM notes WHERE id = ${'a'}`)).toEqual({ body: 'first' })
    expect(db.getSync?.(sql`SELECT body FROM notes WHERE id = ${'zz'}`)).toBeUndefined()
  })

  it('reads committed data outside a transaction, and its own work inside one', async () => {
    const db = store.database('main')
    const count = sql`SELECT COUNT(*) AS n FROM notes`
    const seen: unknown[] = []
    await db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO notes VALUES (${'b'}, ${'second'})`)
      seen.push(tx.getSync?.(count), db.getSync?.(count))
    })
    expect(seen).toEqual([{ n: 2 }, { n: 1 }])
    expect(db.getSync?.(count)).toEqual({ n: 2 })
  })

  it('translates driver errors as the asynchronous reads do', () => {
    const db = store.database('main')
    expect(() => db.allSync?.(sql`SELECT nope FROM notes`)).toThrow(DbError)
    expect(() => db.getSync?.(sql`SELECT nope FROM notes`)).toThrow(/no such column: nope/)
  })
})
