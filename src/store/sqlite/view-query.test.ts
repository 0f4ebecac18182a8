import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, sql } from '../sql.js'
import { SqliteDb } from './database.js'
import { sqliteViewQuery } from './view-query.js'

describe('sqliteViewQuery: double-quoted string literals, as PocketBase reads them', () => {
  let dir: string
  let db: SqliteDb
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-view-'))
    db = new SqliteDb(join(dir, 'data.db'))
    await db.run(sql`CREATE TABLE posts (id TEXT PRIMARY KEY, title TEXT, post TEXT)`)
    await db.run(sql`CREATE TABLE tags (id TEXT PRIMARY KEY)`)
  })
  afterAll(async () => {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it.each([
    // Runs as written: unchanged.
    ['SELECT id, "title" FROM posts', 'SELECT id, "title" FROM posts'],
    ["SELECT id, 'abc' AS kind FROM posts", "SELECT id, 'abc' AS kind FROM posts"],
    // A double-quoted token that names no column is a string.
    ['SELECT id, "abc" AS kind FROM posts', "SELECT id, 'abc' AS kind FROM posts"],
    [
      'SELECT id, "it\'s" AS a, "x" AS b FROM posts WHERE "x" = "x"',
      "SELECT id, 'it''s' AS a, 'x' AS b FROM posts WHERE 'x' = 'x'",
    ],
    // A name that resolves to a column stays one: SQLite looks for a column first.
    ['SELECT p.id, "post" AS kind FROM posts p', 'SELECT p.id, "post" AS kind FROM posts p'],
    // The same name is a column in one place and a string in another.
    [
      'SELECT id, "title" FROM posts UNION ALL SELECT id, "title" FROM tags',
      'SELECT id, "title" FROM posts UNION ALL SELECT id, \'title\' FROM tags',
    ],
  ])('%s', async (query, expected) => {
    const out = await sqliteViewQuery(db, query)
    expect(out).toBe(expected)
    expect((await db.describe(raw(out))).length).toBeGreaterThan(0)
  })

  it('still refuses what fails for another reason', async () => {
    await expect(sqliteViewQuery(db, 'SELECT id FROM nope')).rejects.toThrow(/no such table/)
    await expect(sqliteViewQuery(db, 'SELECT nope FROM posts')).rejects.toThrow(/no such column/)
  })
})
