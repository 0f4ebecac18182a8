import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createdIndexName } from '../src/core/collections/indexes.js'
import type { Db } from '../src/store/db.js'
import { ident, join, sql, type Sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'

/**
 * The default sort of a list (`-created`) reads the first page from an index on `created`, on
 * both engines, instead of sorting the whole table for every page: every collection with a
 * `created` field gets that index, whether made here, imported from a PocketBase export, or
 * already in the database from before (`core/collections/indexes.ts`).
 */
describe('the first page of a list reads an index on created', () => {
  let t: TestServer

  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(async () => {
    await t.close()
  })

  const dbOf = (name: string): Db => t.server.app.dbFor(t.server.app.collections.get(name))

  /**
   * Adds `n` rows straight to the table (as an old database or an import would hold them);
   * `distinct` columns get a value of their own per row.
   */
  async function fill(name: string, n: number, distinct: string[] = []): Promise<void> {
    const db = dbOf(name)
    const cols = ['id', 'created', 'updated', ...distinct].map((c) => ident(c))
    const values = distinct.map(() => sql`, 'v' || i`)
    await db.run(sql`
      INSERT INTO ${ident(name)} (${join(cols)})
      WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${n})
      SELECT 'row' || i, '2024-01-01 ' || (100000 + i), '2024-01-01 ' || (100000 + i)${join(values, '')}
      FROM seq`)
    // NB: the planner weighs an index by the table's statistics, as it would on a live table.
    await db.run(sql`ANALYZE ${ident(name)}`)
  }

  /** The plan of the query a default-sorted `?perPage=20` list of `name` runs, as text. */
  async function firstPagePlan(name: string, query = '?perPage=20'): Promise<string> {
    const db = dbOf(name)
    const seen: Sql[] = []
    const all = db.all.bind(db)
    db.all = (q: Sql) => {
      seen.push(q)
      return all(q)
    }
    try {
      const res = await t.api('GET', `/api/collections/${name}/records${query}`, {
        token: t.suToken,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.items).toHaveLength(20)
    } finally {
      db.all = all
    }
    const page = seen.find((q) => {
      const text = db.dialect.compile(q).sql
      return text.includes(db.dialect.quoteIdent(name)) && text.includes('ORDER BY')
    })
    expect(page, 'the list ran an ORDER BY query').toBeDefined()
    if (db.dialect.name === 'sqlite') {
      const rows = await db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${page!}`)
      return rows.map((r) => r.detail).join('\n')
    }
    const rows = await db.all<Record<string, string>>(sql`EXPLAIN ${page!}`)
    return rows.map((r) => Object.values(r).join(' ')).join('\n')
  }

  /** Asserts the plan reads `index` and sorts nothing but ties (PostgreSQL's incremental sort). */
  function expectIndexed(plan: string, index: string): void {
    expect(plan).toContain(index)
    expect(plan).not.toMatch(/TEMP B-TREE|Seq Scan|(^|->)\s*Sort\s+\(/m)
    expect(plan).not.toMatch(/^SCAN \S+$/m)
  }

  it('a collection made through the API', async () => {
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'fresh',
        type: 'base',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'created', type: 'autodate', onCreate: true },
          { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
        ],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.indexes).toEqual([])
    await fill('fresh', 5000)
    expectIndexed(await firstPagePlan('fresh'), createdIndexName(res.body.id))
    // The same index serves a page further on, and an explicit `-created`.
    expectIndexed(await firstPagePlan('fresh', '?perPage=20&page=3'), createdIndexName(res.body.id))
    expectIndexed(
      await firstPagePlan('fresh', '?perPage=20&sort=-created'),
      createdIndexName(res.body.id),
    )
  })

  it('collections imported from a PocketBase export', async () => {
    const exported = JSON.parse(
      readFileSync(new URL('./fixtures/pocketbase-export.json', import.meta.url), 'utf8'),
    ) as { id: string; name: string; type: string }[]
    // NB: one table of it: its views read SQLite's own functions, which PostgreSQL has not.
    const tables = exported.filter((c) => c.name === 'tags')
    const res = await t.api('PUT', '/api/collections/import', {
      token: t.suToken,
      body: { collections: tables, deleteMissing: false },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    const tags = tables.find((c) => c.name === 'tags')!
    await fill('tags', 5000, ['name'])
    expectIndexed(await firstPagePlan('tags'), createdIndexName(tags.id))
  })

  it('a collection of a database from before, once the server starts again', async () => {
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'older',
        type: 'base',
        fields: [
          { name: 'created', type: 'autodate', onCreate: true },
          { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
        ],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const index = createdIndexName(res.body.id)
    // As a database made before this index existed: the table without it.
    await dbOf('older').run(sql`DROP INDEX ${ident(index)}`)
    await fill('older', 5000)
    expect(await firstPagePlan('older')).not.toContain(index)
    await t.server.restart()
    expectIndexed(await firstPagePlan('older'), index)
  })

  it('a user index on created alone stands in for it', async () => {
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'own',
        type: 'base',
        fields: [
          { name: 'created', type: 'autodate', onCreate: true },
          { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
        ],
        indexes: ['CREATE INDEX idx_own_created ON own (created)'],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    await fill('own', 5000)
    const plan = await firstPagePlan('own')
    expectIndexed(plan, 'idx_own_created')
    const names = await t.server.app.schema.listIndexes(dbOf('own'), 'own')
    expect([...names.keys()]).toEqual(['idx_own_created'])
  })
})
