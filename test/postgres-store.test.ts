/**
 * The store contract on a real PostgreSQL (`SVC_TEST_PG_URL`, started by test/global-setup.ts):
 * open and migrate, transactions, onCommit, unique violations, and the schema manager's round
 * trips. Each test file run gets schemas of its own, dropped at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultStore, dirSchema } from '../src/core/store-choice.js'
import { UniqueViolation, type Db } from '../src/store/db.js'
import { createPostgresStore } from '../src/store/index.js'
import type { IndexSpec } from '../src/store/schema.js'
import { indexColumn } from '../src/store/schema.js'
import { raw, sql } from '../src/store/sql.js'
import type { Store } from '../src/store/store.js'

const url = process.env.SVC_TEST_PG_URL ?? ''
const schema = `t_store_${process.pid}_${Date.now().toString(36)}`

/** Drops the schemas a store made (main and auxiliary). */
async function dropSchemas(...names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (const n of names) await client.query(`DROP SCHEMA IF EXISTS "${n}" CASCADE`)
  } finally {
    await client.end()
  }
}

let store: Store
let db: Db

beforeAll(async () => {
  if (!url) throw new Error('SVC_TEST_PG_URL is not set: test/global-setup.ts starts PostgreSQL')
  store = createPostgresStore({ url, schema })
  await store.open()
  await store.migrate()
  db = store.database('main')
})

afterAll(async () => {
  await store?.close()
  await dropSchemas(schema, `${schema}_aux`)
})

describe('open and migrate', () => {
  it('migrate is idempotent and a closed store opens again with its data', async () => {
    await store.migrate()
    await db.run(sql`INSERT INTO "_params" ("id", "value") VALUES (${'k'}, ${'{"b":1,"a":2}'})`)
    await store.close()
    expect(store.isOpen).toBe(false)
    expect(() => store.database('main')).toThrow(/not open/)
    await store.open()
    await store.migrate()
    db = store.database('main')
    const row = await db.get<{ value: string }>(sql`SELECT "value" FROM "_params" WHERE id = 'k'`)
    // JSON columns keep the text as written: key order and all, as SQLite does.
    expect(row!.value).toBe('{"b":1,"a":2}')
    await expect(store.open()).rejects.toThrow(/open already/)
  })

  it('converts JSONB columns of an earlier schema to JSON at migrate', async () => {
    await db.run(sql`CREATE TABLE "oldjson" ("id" TEXT PRIMARY KEY, "data" JSONB)`)
    await db.run(sql`INSERT INTO "oldjson" VALUES ('a', '{"b":1,"a":2}')`)
    await db.run(sql`ALTER TABLE "_params" ALTER COLUMN "value" TYPE JSONB`)
    await store.migrate()
    const types = await db.all<{ t: string; c: string; type: string }>(
      sql`SELECT table_name AS t, column_name AS c, data_type AS type FROM information_schema.columns
           WHERE table_schema = current_schema() AND data_type IN ('json', 'jsonb')
             AND table_name IN ('oldjson', '_params')`,
    )
    expect(types.map((r) => `${r.t}.${r.c}:${r.type}`).sort()).toEqual([
      '_params.value:json',
      'oldjson.data:json',
    ])
    // The JSONB text (keys sorted) is what there was to keep.
    const row = await db.get<{ data: string }>(sql`SELECT "data" FROM "oldjson"`)
    expect(JSON.parse(row!.data)).toEqual({ a: 2, b: 1 })
    await db.run(sql`DROP TABLE "oldjson"`)
  })

  it('keeps the auxiliary database in its own schema', async () => {
    const aux = store.database('auxiliary')
    const row = await aux.get<{ s: string }>(sql`SELECT current_schema() AS s`)
    expect(row!.s).toBe(`${schema}_aux`)
    expect(await store.schema.exists(aux, '_collections')).toBe(false)
    expect(await store.schema.exists(db, '_collections')).toBe(true)
  })

  it('reads booleans, counts and numbers as JS values', async () => {
    await db.run(
      sql`INSERT INTO "_collections" ("id", "name", "type", "system") VALUES ('c1', 'Posts', 'base', TRUE)`,
    )
    const row = await db.get<{ system: unknown; n: unknown }>(
      sql`SELECT "system", (SELECT count(*) FROM "_collections") AS n FROM "_collections" WHERE id = 'c1'`,
    )
    expect(row).toEqual({ system: true, n: 1 })
  })
})

describe('upkeep and snapshots', () => {
  it('analyzes its own tables, and writes a snapshot its check reads back', async () => {
    await expect(store.optimize()).resolves.toBeUndefined()
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-pg-snap-'))
    try {
      const files = await store.backup(dir)
      expect(files.map((f) => basename(f))).toEqual(['data.pgdump', 'auxiliary.pgdump'])
      // The dump reads back; it is refused only for lacking the tables an app creates.
      await expect(store.checkSnapshot(dir)).rejects.toThrow(/no _superusers table/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('offers the PostgreSQL cluster', () => {
    const cluster = store.cluster?.()
    expect(cluster?.shared).toBe(true)
  })
})

describe('transactions', () => {
  it('rolls back everything when the function throws, and nested calls join', async () => {
    await store.schema.createTable(db, 'tx_items', [
      { name: 'id', kind: 'text', primaryKey: true },
      { name: 'n', kind: 'number' },
    ])
    await expect(
      db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO "tx_items" ("id", "n") VALUES ('a', 1)`)
        await tx.transaction(async (inner) => {
          expect(inner).toBe(tx)
          await inner.run(sql`INSERT INTO "tx_items" ("id", "n") VALUES ('b', 2)`)
        })
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(await db.all(sql`SELECT * FROM "tx_items"`)).toEqual([])
    const result = await db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO "tx_items" ("id", "n") VALUES ('c', 2.5)`)
      return 'done'
    })
    expect(result).toBe('done')
    expect(await db.all(sql`SELECT "id", "n" FROM "tx_items"`)).toEqual([{ id: 'c', n: 2.5 }])
  })

  it('runs onCommit callbacks in order after the commit, never after a rollback', async () => {
    const seen: string[] = []
    await db.transaction(async (tx) => {
      tx.onCommit(() => seen.push('first'))
      tx.onCommit(() => seen.push('second'))
      seen.push('body')
    })
    await db
      .transaction(async (tx) => {
        tx.onCommit(() => seen.push('never'))
        throw new Error('no')
      })
      .catch(() => {})
    db.onCommit(() => seen.push('outside'))
    expect(seen).toEqual(['body', 'first', 'second', 'outside'])
  })

  it('serialises transactions: the second sees the first one’s write', async () => {
    await db.run(sql`DELETE FROM "tx_items"`)
    const add = (id: string) =>
      db.transaction(async (tx) => {
        const n = (await tx.get<{ n: number }>(sql`SELECT count(*) AS n FROM "tx_items"`))!.n
        await tx.run(sql`INSERT INTO "tx_items" ("id", "n") VALUES (${id}, ${n})`)
      })
    await Promise.all([add('x'), add('y'), add('z')])
    const rows = await db.all<{ n: number }>(sql`SELECT "n" FROM "tx_items" ORDER BY "n"`)
    expect(rows.map((r) => r.n)).toEqual([0, 1, 2])
  })
})

describe('unique violations', () => {
  it('translates the case-insensitive collection name index', async () => {
    const err = await db
      .run(sql`INSERT INTO "_collections" ("id", "name", "type") VALUES ('c2', 'POSTS', 'base')`)
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UniqueViolation)
    expect((err as UniqueViolation).columns).toEqual(['name'])
  })

  it('translates a nocase unique index of a collection table', async () => {
    await store.schema.createTable(db, 'people', [
      { name: 'id', kind: 'text', primaryKey: true },
      { name: 'email', kind: 'text' },
    ])
    await store.schema.createIndex(db, 'people', {
      name: 'idx_people_email',
      unique: true,
      columns: [{ expr: indexColumn('email'), nocase: true }],
    })
    await db.run(sql`INSERT INTO "people" ("id", "email") VALUES ('p1', 'A@x.io')`)
    const err = await db
      .transaction((tx) =>
        tx.run(sql`INSERT INTO "people" ("id", "email") VALUES ('p2', 'a@X.io')`),
      )
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UniqueViolation)
    expect(err).toMatchObject({ table: 'people', columns: ['email'] })
  })
})

describe('schema manager', () => {
  const s = () => store.schema

  it('adds, renames, drops and converts columns, keeping the data', async () => {
    await s().createTable(db, 'notes', [
      { name: 'id', kind: 'text', primaryKey: true },
      { name: 'tag', kind: 'text' },
    ])
    await db.run(sql`INSERT INTO "notes" ("id", "tag") VALUES ('1', 'red'), ('2', '')`)
    await s().addColumn(db, 'notes', { name: 'done', kind: 'bool' })
    await s().addColumn(db, 'notes', { name: 'meta', kind: 'json' })
    await s().renameColumn(db, 'notes', 'tag', 'tags')
    await s().convertColumn(db, 'notes', 'tags', true)
    let rows = await db.all<{ id: string; tags: string; done: boolean }>(
      sql`SELECT "id", "tags", "done" FROM "notes" ORDER BY "id"`,
    )
    expect(rows.map((r) => [r.id, JSON.parse(r.tags), r.done])).toEqual([
      ['1', ['red'], false],
      ['2', [], false],
    ])
    await db.run(sql`UPDATE "notes" SET "tags" = '["a","b"]' WHERE "id" = '1'`)
    await s().convertColumn(db, 'notes', 'tags', false)
    rows = await db.all(sql`SELECT "id", "tags" FROM "notes" ORDER BY "id"`)
    expect(rows.map((r) => r.tags)).toEqual(['b', ''])
    await s().dropColumn(db, 'notes', 'meta')
    const cols = await db.describe(sql`SELECT * FROM "notes"`)
    expect(cols.map((c) => [c.name, c.declaredType])).toEqual([
      ['id', 'text'],
      ['_rowid_', 'bigint'],
      ['done', 'boolean'],
      ['tags', 'text'],
    ])
    await s().renameTable(db, 'notes', 'memos')
    expect(await s().exists(db, 'notes')).toBe(false)
    expect(await s().exists(db, 'memos')).toBe(true)
    await s().dropTable(db, 'memos')
    expect(await s().exists(db, 'memos')).toBe(false)
  })

  it('lists exactly the definitions it computes, so diffing sees no change', async () => {
    await s().createTable(db, 'docs', [
      { name: 'id', kind: 'text', primaryKey: true },
      { name: 'title', kind: 'text' },
      { name: 'data', kind: 'json' },
      { name: 'n', kind: 'number' },
    ])
    const long = `idx_${'x'.repeat(70)}`
    const specs: IndexSpec[] = [
      { name: 'idx_docs_title', unique: false, columns: [{ expr: indexColumn('title') }] },
      {
        name: 'idx_docs_title_ci',
        unique: true,
        columns: [{ expr: indexColumn('title'), nocase: true, desc: true }],
        where: {
          kind: 'binary',
          op: 'IS NOT',
          left: indexColumn('title'),
          right: { kind: 'text', value: "it's" },
        },
      },
      {
        name: 'idx_docs_expr',
        unique: false,
        columns: [
          {
            expr: {
              kind: 'call',
              fn: 'json_extract',
              args: [indexColumn('data'), { kind: 'text', value: '$.a."b c"[0]' }],
            },
          },
          {
            expr: {
              kind: 'binary',
              op: '+',
              left: indexColumn('n'),
              right: { kind: 'number', value: 1 },
            },
          },
          { expr: { kind: 'call', fn: 'ifnull', args: [indexColumn('title'), { kind: 'null' }] } },
        ],
      },
      { name: long, unique: false, columns: [{ expr: indexColumn('n') }] },
    ]
    for (const spec of specs) await s().createIndex(db, 'docs', spec)
    const listed = await s().listIndexes(db, 'docs')
    expect([...listed.keys()].sort()).toEqual(specs.map((x) => x.name).sort())
    for (const spec of specs) expect(listed.get(spec.name)).toBe(s().indexDefinition('docs', spec))
    expect(listed.get('idx_docs_title_ci')).toContain('lower("title") DESC')
    // The expression index is used by PostgreSQL as written.
    await db.run(
      sql`INSERT INTO "docs" ("id", "title", "data") VALUES ('1', 'T', '{"a":{"b c":[7]}}')`,
    )
    // An index made elsewhere is listed with PostgreSQL's definition, so it never matches.
    await db.run(sql`CREATE INDEX "idx_docs_other" ON "docs" ("n")`)
    expect((await s().listIndexes(db, 'docs')).get('idx_docs_other')).toMatch(/^CREATE INDEX/)
    await s().dropIndex(db, long)
    await s().dropIndex(db, 'idx_docs_other')
    expect((await s().listIndexes(db, 'docs')).has(long)).toBe(false)
    expect((await s().listIndexes(db, 'docs')).has('idx_docs_other')).toBe(false)
  })

  it('rewrites PocketBase double-quoted strings in views and describes them', async () => {
    await s().createTable(db, 'posts', [
      { name: 'id', kind: 'text', primaryKey: true },
      { name: 'title', kind: 'text' },
      { name: 'views', kind: 'number' },
    ])
    const asWritten = 'SELECT id, title, views FROM posts'
    expect(await s().viewQuery(db, asWritten)).toBe(asWritten)
    const query = await s().viewQuery(
      db,
      'SELECT p.id, "title", "news" AS kind, count(*) AS n FROM posts p GROUP BY p.id',
    )
    expect(query).toBe(
      `SELECT p.id, "title", 'news' AS kind, count(*) AS n FROM posts p GROUP BY p.id`,
    )
    const cols = await s().describeQuery(db, query)
    expect(cols.map((c) => [c.name, c.table, c.column, c.declaredType])).toEqual([
      ['id', 'posts', 'id', 'text'],
      ['title', 'posts', 'title', 'text'],
      ['kind', null, null, null],
      ['n', null, null, null],
    ])
    await expect(s().viewQuery(db, 'SELECT id FROM nowhere')).rejects.toThrow(/nowhere/)
    await s().createView(db, 'post_view', query)
    expect(await s().exists(db, 'post_view')).toBe(true)
    await db.run(sql`INSERT INTO "posts" ("id", "title", "views") VALUES ('p', 'Hi', 3)`)
    expect(await db.all(raw('SELECT * FROM post_view'))).toEqual([
      { id: 'p', title: 'Hi', kind: 'news', n: 1 },
    ])
    await s().dropView(db, 'post_view')
    expect(await s().exists(db, 'post_view')).toBe(false)
  })
})

describe('choosing the store', () => {
  it('derives one stable schema per data folder for @dir', () => {
    expect(dirSchema('/tmp/a')).toBe(dirSchema('/tmp/a/'))
    expect(dirSchema('/tmp/a')).not.toBe(dirSchema('/tmp/b'))
    expect(dirSchema('/tmp/a')).toMatch(/^svc_[0-9a-f]{24}$/)
    expect(defaultStore({ dataDir: '/tmp/a', databaseUrl: url }).dialect.name).toBe('postgres')
    expect(defaultStore({ dataDir: '/tmp/a', databaseUrl: '' }).dialect.name).toBe('sqlite')
  })

  it('refuses URLs and schemas it cannot use, clearly', () => {
    expect(() => defaultStore({ dataDir: '/tmp/a', databaseUrl: 'mysql://x/y' })).toThrow(
      /must start with postgres:\/\//,
    )
    expect(() =>
      defaultStore({ dataDir: '/tmp/a', databaseUrl: url, databaseSchema: 'bad-name' }),
    ).toThrow(/database schema "bad-name"/)
  })

  it('prepares statements run again unless SVC_DATABASE_PREPARED is off, and refuses other values', async () => {
    const prepared = async (value: string | undefined): Promise<number> => {
      const name = `${schema}_p${value ?? ''}`
      const before = process.env.SVC_DATABASE_PREPARED
      if (value === undefined) delete process.env.SVC_DATABASE_PREPARED
      else process.env.SVC_DATABASE_PREPARED = value
      const store = defaultStore({ dataDir: '/tmp/a', databaseUrl: url, databaseSchema: name })
      if (before === undefined) delete process.env.SVC_DATABASE_PREPARED
      else process.env.SVC_DATABASE_PREPARED = before
      await store.open()
      try {
        const db = store.database('main')
        // NB: all on one connection: the transaction keeps it.
        return await db.transaction(async (tx) => {
          for (let i = 0; i < 3; i++) await tx.get(sql`SELECT ${i}::int AS n`)
          const r = await tx.get<{ n: number }>(
            sql`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE ${'svc_p%'}`,
          )
          return r!.n
        })
      } finally {
        await store.close()
        await dropSchemas(name, `${name}_aux`)
      }
    }
    expect(await prepared(undefined)).toBeGreaterThan(0)
    expect(await prepared('off')).toBe(0)
    process.env.SVC_DATABASE_PREPARED = 'sometimes'
    try {
      expect(() => defaultStore({ dataDir: '/tmp/a', databaseUrl: url })).toThrow(
        /SVC_DATABASE_PREPARED must be on or off, not "sometimes"/,
      )
    } finally {
      delete process.env.SVC_DATABASE_PREPARED
    }
  })
})
