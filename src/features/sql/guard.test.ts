import { describe, expect, it } from 'vitest'
import { refusedConstruct } from './guard.js'

describe('refusedConstruct', () => {
  it('refuses what reaches outside the database or past the safeguards, however written', () => {
    const cases: Array<[string, string]> = [
      [`COPY posts TO PROGRAM 'curl x'`, 'COPY'],
      [`  -- c\n copy posts from '/etc/passwd'`, 'COPY'],
      [`SET session_replication_role = replica`, 'SET/RESET'],
      [`/* x */ RESET ROLE`, 'SET/RESET'],
      [`DO $$ BEGIN PERFORM 1; END $$`, 'DO'],
      [
        `CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'`,
        'functions, procedures and extensions',
      ],
      [`CREATE EXTENSION dblink`, 'functions, procedures and extensions'],
      [`ALTER SYSTEM SET fsync = off`, 'ALTER SYSTEM'],
      [`CREATE ROLE x SUPERUSER`, 'roles and databases'],
      [`SELECT pg_read_file('/etc/passwd')`, 'server files'],
      [`SELECT "pg_catalog"."PG_LS_DIR"('.')`, 'server files'],
      [`SELECT lo_import('/etc/passwd')`, 'server files'],
      [`SELECT * FROM dblink('host=x', 'DELETE FROM t') AS t(x int)`, 'dblink'],
      [`SELECT pg_terminate_backend(123)`, 'server administration functions'],
      [`WITH s AS (SELECT set_config('role', 'x', true)) DELETE FROM t`, 'settings'],
      [`SELECT query_to_xml('DELETE FROM t', true, true, '')`, 'SQL run from text'],
      [`SELECT U&"pg_r\\0065ad_file"('/etc/passwd')`, 'Unicode escapes (U&)'],
      [`NOTIFY svc_bus, 'x'`, 'LISTEN/NOTIFY'],
      [`SELECT pg_notify('svc_bus', 'x')`, 'server administration functions'],
    ]
    for (const [text, name] of cases) expect(refusedConstruct(text), text).toBe(name)
  })

  it('lets ordinary statements of both engines through', () => {
    for (const text of [
      `SELECT id, title FROM posts WHERE title LIKE '%rule%' ORDER BY created`,
      `WITH x AS (SELECT 1 AS a) SELECT * FROM x`,
      `UPDATE posts SET title = 'the settings' WHERE id = 'a'`,
      `UPDATE users SET role = 'admin', authorization = 'x' WHERE id = 'a'`,
      `SELECT id FROM t WHERE program = 'copy' AND rule = 'do'`,
      `CREATE TABLE scratch (x INTEGER)`,
      `CREATE INDEX scratch_x ON scratch (x)`,
      `DELETE FROM scratch`,
      `INSERT INTO scratch SELECT 1 RETURNING x`,
      `PRAGMA table_info(posts)`,
    ]) {
      expect(refusedConstruct(text), text).toBeNull()
    }
  })
})
