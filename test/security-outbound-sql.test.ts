/**
 * Security issue #32, point 16a, black-box: the SQL console's write mode refuses PRAGMAs that
 * can corrupt the database or take it from the app (an allow-list of read-only ones, said in the
 * 400), in every spelling SQLite accepts; the database is left as it was. PostgreSQL's
 * equivalents (`SET session_replication_role`, `ALTER SYSTEM`, `set_config`) are refused by the
 * same text guard on every engine.
 */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

let t: TestServer
const run = (sql: string, write = true) =>
  t.api('POST', '/api/sql', { token: t.suToken, body: { sql, write } })

function pragmas(): { schema_version: number; user_version: number; journal_mode: string } {
  const db = new Database(join(t.dir, 'data.db'), { readonly: true })
  try {
    return {
      schema_version: db.pragma('schema_version', { simple: true }) as number,
      user_version: db.pragma('user_version', { simple: true }) as number,
      journal_mode: db.pragma('journal_mode', { simple: true }) as string,
    }
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  t = await startServer()
})
afterAll(() => t?.close())

describe('SQL console PRAGMAs (#32.16a)', () => {
  it('refuses PRAGMAs that write, in every spelling, and changes nothing', async () => {
    const before = pragmas()
    expect(before.journal_mode).toBe('wal')
    const refused = [
      'PRAGMA schema_version = 1',
      'PRAGMA writable_schema = ON',
      'PRAGMA writable_schema = RESET',
      'PRAGMA journal_mode = DELETE',
      'PRAGMA locking_mode = EXCLUSIVE',
      'PRAGMA user_version = 42',
      'PRAGMA main.user_version = 43',
      'PRAGMA user_version(44)',
      ';PRAGMA user_version = 45',
      ' ; ; pragma\tuser_version\n=46',
      '/* c */ -- d\n PRAGMA user_version = 47',
      'PRAGMA [user_version] = 48',
      'PRAGMA "user_version" = 49',
      'PRAGMA wal_checkpoint(TRUNCATE)',
      'PRAGMA page_size = 1024',
      'PRAGMA auto_vacuum = FULL',
      'PRAGMA incremental_vacuum',
      'PRAGMA ignore_check_constraints = ON',
      'PRAGMA foreign_keys = OFF',
      'PRAGMA table_info = x',
    ]
    for (const sql of refused) {
      const r = await run(sql)
      expect(r.status, sql).toBe(400)
      expect(r.body.message, sql).toMatch(/does not run PRAGMA/)
      expect(r.body.message, sql).toMatch(/allow-list/)
      expect(r.body.message, sql).toMatch(/table_info/)
    }
    expect(pragmas()).toEqual(before)
    // The database still works.
    const ok = await run('SELECT count(*) AS n FROM _collections', false)
    expect(ok.status).toBe(200)
  })

  it('still runs the read-only ones and the pragma_* functions', async () => {
    for (const sql of [
      'PRAGMA table_info(_collections)',
      'PRAGMA main.index_list("_collections")',
      'PRAGMA integrity_check',
      'PRAGMA quick_check(1);',
      'PRAGMA foreign_key_check',
      'PRAGMA schema_version',
      'PRAGMA journal_mode',
      'PRAGMA optimize',
    ]) {
      const r = await run(sql)
      expect(r.status, `${sql}: ${JSON.stringify(r.body)}`).toBe(200)
    }
    const r = await run("SELECT name FROM pragma_table_info('_collections')", false)
    expect(r.status).toBe(200)
    expect(r.body.rows.length).toBeGreaterThan(0)
  })

  it("refuses PostgreSQL's session and server settings on every engine", async () => {
    for (const sql of [
      'SET session_replication_role = replica',
      ';SET session_replication_role = replica',
      "SELECT set_config('session_replication_role', 'replica', false)",
      'ALTER SYSTEM SET fsync = off',
    ]) {
      const r = await run(sql)
      expect(r.status, sql).toBe(400)
      expect(r.body.message, sql).toMatch(/does not run/)
    }
  })
})
