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

  describe('group commit', () => {
    const ids = async () =>
      (await db.all<{ id: string }>(sql`SELECT id FROM t ORDER BY id`)).map((r) => r.id)
    /** A transaction inserting `id`; it waits for `gate` so that others can queue behind it. */
    const insert = (id: string, gate?: Promise<void>, fail = false) =>
      db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO t (id, n) VALUES (${id}, 1)`)
        if (gate) await gate
        if (fail) throw new Error(`fail ${id}`)
        return id
      })

    it('lets queued transactions share one commit and settles each only after it', async () => {
      let open!: () => void
      const gate = new Promise<void>((r) => (open = r))
      const settled: string[] = []
      let seenByReader: string[] = ['unset']
      const first = insert('a', gate).then((id) => settled.push(id))
      const second = db.transaction(async (tx) => {
        // Runs inside the group `a` left open: a is visible here but not yet committed.
        expect(await tx.all(sql`SELECT id FROM t`)).toEqual([{ id: 'a' }])
        seenByReader = await ids()
        await tx.run(sql`INSERT INTO t (id, n) VALUES ('b', 1)`)
        settled.push('b-body')
      })
      open()
      await Promise.all([first, second])
      expect(seenByReader).toEqual([])
      expect(settled).toEqual(['b-body', 'a'])
      expect(await ids()).toEqual(['a', 'b'])
    })

    it('groups transactions that reach the writer in the same turn of the event loop', async () => {
      const seen: string[][] = []
      const member = (id: string) =>
        db.transaction(async (tx) => {
          seen.push(await ids())
          await tx.run(sql`INSERT INTO t (id, n) VALUES (${id}, 1)`)
        })
      await Promise.all([member('a'), member('b'), member('c')])
      // None of them ran after another one's commit: they shared one.
      expect(seen).toEqual([[], [], []])
      expect(await ids()).toEqual(['a', 'b', 'c'])
      // A transaction alone still commits before its promise settles.
      await member('d')
      expect(await ids()).toEqual(['a', 'b', 'c', 'd'])
    })

    it('groups a transaction that reaches the writer in the next turn of the event loop', async () => {
      const seen: string[][] = []
      let next!: Promise<void>
      const member = (id: string, after?: () => void) =>
        db.transaction(async (tx) => {
          seen.push(await ids())
          await tx.run(sql`INSERT INTO t (id, n) VALUES (${id}, 1)`)
          after?.()
        })
      // b starts in the next turn's check phase, as a request whose body the next poll reads.
      const a = member('a', () => {
        next = new Promise((resolve, reject) =>
          setImmediate(() => setImmediate(() => void member('b').then(resolve, reject))),
        )
      })
      await a
      await next
      // b did not see a: they shared one commit.
      expect(seen).toEqual([[], []])
      expect(await ids()).toEqual(['a', 'b'])
    })

    it('rolls back only the member that failed', async () => {
      let open!: () => void
      const gate = new Promise<void>((r) => (open = r))
      const results = Promise.allSettled([
        insert('a', gate),
        insert('b', undefined, true),
        insert('c'),
      ])
      open()
      const [a, b, c] = await results
      expect(a).toEqual({ status: 'fulfilled', value: 'a' })
      expect(b.status).toBe('rejected')
      expect(c).toEqual({ status: 'fulfilled', value: 'c' })
      expect(await ids()).toEqual(['a', 'c'])
    })

    it('starts over cleanly when the first member fails', async () => {
      let open!: () => void
      const gate = new Promise<void>((r) => (open = r))
      const results = Promise.allSettled([insert('a', gate, true), insert('b'), insert('c')])
      open()
      expect((await results).map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled'])
      expect(await ids()).toEqual(['b', 'c'])
    })

    it('fails every member when the shared commit fails', async () => {
      await db.run(sql`CREATE TABLE p (id TEXT PRIMARY KEY)`)
      await db.run(
        sql`CREATE TABLE c (id TEXT PRIMARY KEY, pid TEXT REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)`,
      )
      let open!: () => void
      const gate = new Promise<void>((r) => (open = r))
      const results = Promise.allSettled([
        insert('a', gate),
        // A deferred foreign key is only checked by COMMIT.
        db.transaction((tx) => tx.run(sql`INSERT INTO c (id, pid) VALUES ('c1', 'missing')`)),
      ])
      open()
      const [a, child] = await results
      expect(a.status).toBe('rejected')
      expect(child.status).toBe('rejected')
      expect(String((a as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/)
      expect(await ids()).toEqual([])
      expect(await db.all(sql`SELECT * FROM c`)).toEqual([])
      // The writer is usable afterwards.
      await insert('z')
      expect(await ids()).toEqual(['z'])
    })

    it('fails the earlier members when SQLite drops the whole transaction', async () => {
      let open!: () => void
      const gate = new Promise<void>((r) => (open = r))
      const results = Promise.allSettled([
        insert('a', gate),
        db.transaction((tx) => tx.run(sql`ROLLBACK`)),
        insert('c'),
      ])
      open()
      expect((await results).map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled'])
      expect(await ids()).toEqual(['c'])
    })

    it('runs onCommit callbacks at commit, before the next transaction starts', async () => {
      let open!: () => void
      const gate = new Promise<void>((r) => (open = r))
      const events: string[] = []
      const first = db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO t (id, n) VALUES ('a', 1)`)
        tx.onCommit(() => events.push('committed a'))
        await gate
      })
      const second = db.transaction(async () => {
        // `a` asked for its own commit: it is visible outside before this one starts.
        events.push(`b starts, reader sees ${(await ids()).join(',')}`)
      })
      open()
      await Promise.all([first, second])
      expect(events).toEqual(['committed a', 'b starts, reader sees a'])
    })

    it('drops the onCommit callbacks of a transaction that failed', async () => {
      const events: string[] = []
      await expect(
        db.transaction(async (tx) => {
          tx.onCommit(() => events.push('failed one'))
          throw new Error('no')
        }),
      ).rejects.toThrow('no')
      await db.transaction(async (tx) => {
        tx.onCommit(() => events.push('good one'))
        await tx.run(sql`INSERT INTO t (id, n) VALUES ('a', 1)`)
      })
      expect(events).toEqual(['good one'])
    })

    it('commits an open group before a plain write', async () => {
      let open!: () => void
      const gate = new Promise<void>((r) => (open = r))
      const first = insert('a', gate)
      const write = db.run(sql`INSERT INTO t (id, n) VALUES ('w', 1)`)
      open()
      await Promise.all([first, write])
      expect(await ids()).toEqual(['a', 'w'])
    })
  })
})
