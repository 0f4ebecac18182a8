/**
 * Transactions of the PostgreSQL store side by side (`SVC_TEST_PG_URL`, started by
 * test/global-setup.ts): they overlap, a conflict is retried alone with `onCommit` and the app's
 * after-commit callbacks from the committed attempt only, concurrent unique inserts leave one
 * winner and translated violations for the others, nested calls join, failures leave nothing,
 * a swallowed failed statement fails the transaction, and `exclusive` runs alone.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/core/app.js'
import { systemRequest } from '../src/core/auth/superusers.js'
import { createApp } from '../src/core/create-app.js'
import { ApiError } from '../src/core/errors.js'
import { silentLogger } from '../src/core/logger.js'
import { DbError, UniqueViolation, type Db } from '../src/store/db.js'
import { createPostgresStore } from '../src/store/index.js'
import { MAX_ATTEMPTS } from '../src/store/postgres/database.js'
import { sql } from '../src/store/sql.js'
import type { Store } from '../src/store/store.js'

const url = process.env.SVC_TEST_PG_URL ?? ''
const schema = `t_pgtx_${process.pid}_${Date.now().toString(36)}`
const appSchema = `${schema}_app`

/** Drops the schemas the stores made (main and auxiliary). */
async function dropSchemas(...names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (const n of names) await client.query(`DROP SCHEMA IF EXISTS "${n}" CASCADE`)
  } finally {
    await client.end()
  }
}

/** A promise with its resolver, to make two transactions wait for each other. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

let store: Store
let db: Db

beforeAll(async () => {
  if (!url) throw new Error('SVC_TEST_PG_URL is not set: test/global-setup.ts starts PostgreSQL')
  store = createPostgresStore({ url, schema })
  await store.open()
  await store.migrate()
  db = store.database('main')
  await db.run(sql`CREATE TABLE "tx_rows" ("id" TEXT PRIMARY KEY, "n" INTEGER NOT NULL)`)
  await db.run(sql`CREATE TABLE "tx_unique" ("id" TEXT PRIMARY KEY, "email" TEXT NOT NULL)`)
  await db.run(sql`CREATE UNIQUE INDEX "tx_unique_email" ON "tx_unique" (lower("email"))`)
})

afterAll(async () => {
  await store?.close()
  await dropSchemas(schema, `${schema}_aux`)
})

describe('transactions side by side', () => {
  it('runs two transactions at once: each waits inside for the other to start', async () => {
    const a = signal()
    const b = signal()
    const both = await Promise.all([
      db.transaction(async (tx) => {
        a.resolve()
        await b.promise
        return (await tx.get<{ one: number }>(sql`SELECT 1 AS one`))!.one
      }),
      db.transaction(async (tx) => {
        b.resolve()
        await a.promise
        return (await tx.get<{ one: number }>(sql`SELECT 2 AS one`))!.one
      }),
    ])
    expect(both).toEqual([1, 2])
  })

  it('retries a conflicting transaction alone; onCommit runs once, for the committed attempt', async () => {
    await db.run(sql`DELETE FROM "tx_rows"`)
    const bothRead = [signal(), signal()]
    const attempts = [0, 0]
    const committed: string[] = []
    // Each reads the count, waits (first attempt only) until the other read it too, then
    // inserts: one of them must see the other's row, so PostgreSQL refuses one as it stands.
    const add = (i: number) =>
      db.transaction(async (tx) => {
        attempts[i]!++
        const { n } = (await tx.get<{ n: number }>(sql`SELECT count(*) AS n FROM "tx_rows"`))!
        if (attempts[i] === 1) {
          bothRead[i]!.resolve()
          await bothRead[1 - i]!.promise
        }
        await tx.run(sql`INSERT INTO "tx_rows" ("id", "n") VALUES (${`r${i}`}, ${n})`)
        tx.onCommit(() => committed.push(`r${i} after ${attempts[i]}`))
        return n
      })
    const counts = await Promise.all([add(0), add(1)])
    expect(counts.sort()).toEqual([0, 1])
    expect([...attempts].sort()).toEqual([1, 2])
    expect(committed.sort()).toEqual(
      attempts[0] === 2 ? ['r0 after 2', 'r1 after 1'] : ['r0 after 1', 'r1 after 2'],
    )
    const rows = await db.all<{ n: number }>(sql`SELECT "n" FROM "tx_rows" ORDER BY "n"`)
    expect(rows.map((r) => r.n)).toEqual([0, 1])
  })

  it('serialises read-check-write: ten concurrent counters end 0..9', async () => {
    await db.run(sql`DELETE FROM "tx_rows"`)
    const add = (id: string) =>
      db.transaction(async (tx) => {
        const { n } = (await tx.get<{ n: number }>(sql`SELECT count(*) AS n FROM "tx_rows"`))!
        await tx.run(sql`INSERT INTO "tx_rows" ("id", "n") VALUES (${id}, ${n})`)
      })
    await Promise.all(Array.from({ length: 10 }, (_, i) => add(`c${i}`)))
    const rows = await db.all<{ n: number }>(sql`SELECT "n" FROM "tx_rows" ORDER BY "n"`)
    expect(rows.map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  it('lets one of concurrent inserts of a unique value win; the others get UniqueViolation', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        db.transaction(async (tx) => {
          await tx.run(
            sql`INSERT INTO "tx_unique" ("id", "email") VALUES (${`u${i}`}, ${i % 2 ? 'A@x.io' : 'a@x.io'})`,
          )
          return i
        }),
      ),
    )
    const won = results.filter((r) => r.status === 'fulfilled')
    const lost = results.filter((r) => r.status === 'rejected')
    expect(won).toHaveLength(1)
    expect(lost).toHaveLength(5)
    for (const r of lost) {
      const err = r.reason as UniqueViolation
      expect(err).toBeInstanceOf(UniqueViolation)
      expect(err.table).toBe('tx_unique')
      expect(err.columns).toEqual(['email'])
    }
    const rows = await db.all(sql`SELECT "id" FROM "tx_unique"`)
    expect(rows).toHaveLength(1)
  })

  it('joins nested calls: a failure inside rolls back the outer work too', async () => {
    await db.run(sql`DELETE FROM "tx_rows"`)
    await expect(
      db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO "tx_rows" ("id", "n") VALUES ('outer', 1)`)
        await tx.transaction(async (inner) => {
          const seen = await inner.get(sql`SELECT "id" FROM "tx_rows" WHERE "id" = 'outer'`)
          expect(seen).toEqual({ id: 'outer' })
          await inner.run(sql`INSERT INTO "tx_rows" ("id", "n") VALUES ('inner', 2)`)
          throw new Error('inner failed')
        })
      }),
    ).rejects.toThrow('inner failed')
    expect(await db.all(sql`SELECT "id" FROM "tx_rows"`)).toEqual([])
  })

  it('leaves nothing written when a statement fails, and translates the error', async () => {
    await db.run(sql`DELETE FROM "tx_rows"`)
    const err = await db
      .transaction(async (tx) => {
        await tx.run(sql`INSERT INTO "tx_rows" ("id", "n") VALUES ('kept?', 1)`)
        await tx.run(sql`INSERT INTO "tx_rows" ("id", "n") VALUES ('kept?', 2)`)
      })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UniqueViolation)
    expect(await db.all(sql`SELECT "id" FROM "tx_rows"`)).toEqual([])
  })

  it('fails a transaction whose function swallowed a failed statement, instead of claiming a commit', async () => {
    await db.run(sql`DELETE FROM "tx_rows"`)
    let ran = false
    const err = await db
      .transaction(async (tx) => {
        await tx.run(sql`INSERT INTO "tx_rows" ("id", "n") VALUES ('lost', 1)`)
        await tx.run(sql`SELECT 1/0`).catch(() => undefined)
        tx.onCommit(() => (ran = true))
      })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(DbError)
    expect((err as Error).message).toMatch(/rolled back/)
    expect(ran).toBe(false)
    expect(await db.all(sql`SELECT "id" FROM "tx_rows"`)).toEqual([])
  })

  it('runs exclusive work alone: it waits for running transactions and holds new ones', async () => {
    const order: string[] = []
    const inside = signal()
    const release = signal()
    const running = db.transaction(async () => {
      order.push('tx start')
      inside.resolve()
      await release.promise
      order.push('tx end')
    })
    await inside.promise
    const pg = db as Db & { exclusive<T>(fn: () => Promise<T>): Promise<T> }
    const alone = pg.exclusive(async () => {
      order.push('exclusive')
    })
    const later = db.transaction(async () => {
      order.push('later tx')
    })
    release.resolve()
    await Promise.all([running, alone, later])
    expect(order).toEqual(['tx start', 'tx end', 'exclusive', 'later tx'])
  })

  it('gives up after its attempts when every one conflicts', async () => {
    let attempts = 0
    const err = await db
      .transaction(async (tx) => {
        attempts++
        // A serialization failure raised by the server, as a conflict would.
        await tx.run(sql`DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '40001'; END $$`)
      })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(DbError)
    expect(attempts).toBe(MAX_ATTEMPTS)
  })
})

describe('the app on PostgreSQL', () => {
  let app: App
  let dir: string

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-pgtx-'))
    app = await createApp({
      dataDir: dir,
      databaseUrl: url,
      databaseSchema: appSchema,
      logger: silentLogger,
    })
    await app.collections.create({
      name: 'tx_posts',
      type: 'base',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'slug', type: 'text' },
      ],
      indexes: ['CREATE UNIQUE INDEX idx_tx_posts_slug ON tx_posts (slug)'],
    })
  })

  afterAll(async () => {
    await app?.close()
    rmSync(dir, { recursive: true, force: true })
    await dropSchemas(appSchema, `${appSchema}_aux`)
  })

  it('answers concurrent creates of one unique slug with one record and 400s naming the field', async () => {
    const posts = app.collections.get('tx_posts')
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) =>
        app.records.create(posts, { title: `t${i}`, slug: 'same' }, systemRequest(app)),
      ),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of results.filter((x) => x.status === 'rejected')) {
      const err = r.reason as ApiError
      expect(err).toBeInstanceOf(ApiError)
      expect(err.status).toBe(400)
      expect(err.data).toMatchObject({ slug: { code: 'validation_not_unique' } })
    }
  })

  it('runs the after-commit callbacks of the committed attempt only, and the rolled-back one’s after-rollback', async () => {
    const posts = app.collections.get('tx_posts')
    const bothRead = [signal(), signal()]
    const attempts = [0, 0]
    const afterCommit: string[] = []
    const afterRollback: string[] = []
    const run = (i: number) =>
      app.runInTransaction(async (tx) => {
        const attempt = ++attempts[i]!
        tx.onAfterCommit(() => void afterCommit.push(`${i}/${attempt}`))
        tx.onAfterRollback(() => void afterRollback.push(`${i}/${attempt}`))
        const { n } = (await tx.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM "tx_posts"`))!
        if (attempt === 1) {
          bothRead[i]!.resolve()
          await bothRead[1 - i]!.promise
        }
        await tx.records.create(posts, { title: `n${n}`, slug: `s${i}-${n}` }, systemRequest(tx))
      })
    await Promise.all([run(0), run(1)])
    expect([...attempts].sort()).toEqual([1, 2])
    const retried = attempts[0] === 2 ? 0 : 1
    expect(afterCommit.sort()).toEqual([`${1 - retried}/1`, `${retried}/2`].sort())
    expect(afterRollback).toEqual([`${retried}/1`])
  })

  it('keeps both of two collections created side by side in the registry', async () => {
    await Promise.all(
      ['tx_side_a', 'tx_side_b'].map((name) =>
        app.collections.create({ name, type: 'base', fields: [{ name: 'x', type: 'text' }] }),
      ),
    )
    expect(app.collections.find('tx_side_a')?.name).toBe('tx_side_a')
    expect(app.collections.find('tx_side_b')?.name).toBe('tx_side_b')
  })
})
