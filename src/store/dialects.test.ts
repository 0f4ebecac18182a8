import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import type { Dialect } from './dialect.js'
import { postgresDialect, STRFTIME_TIME, toCharPattern } from './postgres/postgres-dialect.js'
import { column, ident, join, param, raw, sql, type Sql } from './sql.js'
import { sqliteDialect, sqliteJsonPath } from './sqlite/sqlite-dialect.js'

interface Case {
  name: string
  build: (d: Dialect) => Sql
  sqlite: [string, unknown[]]
  postgres: [string, unknown[]]
}

const col = column('t', 'data')

/** Each case states the expected SQL and parameters for both dialects side by side. */
const cases: Case[] = [
  {
    name: 'placeholders and identifiers',
    build: () => sql`SELECT ${ident('a"b')} FROM ${ident('t')} WHERE x = ${1} AND y = ${'z'}`,
    sqlite: ['SELECT "a""b" FROM "t" WHERE x = ? AND y = ?', [1, 'z']],
    postgres: ['SELECT "a""b" FROM "t" WHERE x = $1 AND y = $2', [1, 'z']],
  },
  {
    name: 'boolean and undefined parameters',
    build: () => sql`${true}, ${false}, ${undefined}, ${null}`,
    sqlite: ['?, ?, ?, ?', [1, 0, null, null]],
    postgres: ['$1, $2, $3, $4', [true, false, null, null]],
  },
  {
    name: 'jsonExtract binds the path',
    build: (d) => d.jsonExtract(col, ['a', 0, 'b c']),
    sqlite: ['json_extract("t"."data", ?)', ['$.a[0]."b c"']],
    postgres: ['("t"."data" #>> $1::text[])', [['a', '0', 'b c']]],
  },
  {
    name: 'jsonArrayLength',
    build: (d) => d.jsonArrayLength(col),
    sqlite: ['COALESCE(json_array_length("t"."data"), 0)', []],
    postgres: [
      `json_array_length(CASE WHEN json_typeof("t"."data") = 'array' THEN "t"."data" ELSE '[]'::json END)`,
      [],
    ],
  },
  {
    name: 'jsonEach',
    build: (d) => {
      const each = d.jsonEach(col, 'je')
      return sql`SELECT ${each.value} FROM ${each.from}`
    },
    sqlite: ['SELECT "je"."value" FROM json_each("t"."data") AS "je"', []],
    postgres: [
      `SELECT "je"."value" FROM json_array_elements_text(CASE WHEN json_typeof("t"."data") = 'array' THEN "t"."data" ELSE '[]'::json END) AS "je"("value")`,
      [],
    ],
  },
  {
    name: 'like',
    build: (d) => d.like(column('t', 'a'), param('%x%'), false),
    sqlite: [`"t"."a" LIKE ? ESCAPE '\\'`, ['%x%']],
    postgres: [`CAST("t"."a" AS TEXT) ILIKE $1 ESCAPE '\\'`, ['%x%']],
  },
  {
    name: 'not like',
    build: (d) => d.like(column('t', 'a'), param('%x%'), true),
    sqlite: [`"t"."a" NOT LIKE ? ESCAPE '\\'`, ['%x%']],
    postgres: [`CAST("t"."a" AS TEXT) NOT ILIKE $1 ESCAPE '\\'`, ['%x%']],
  },
  {
    name: 'isSame',
    build: (d) =>
      sql`${d.isSame(raw('a'), param(1), false)} AND ${d.isSame(raw('b'), raw('c'), true)}`,
    sqlite: ['a IS ? AND b IS NOT c', [1]],
    postgres: ['a IS NOT DISTINCT FROM $1 AND b IS DISTINCT FROM c', [1]],
  },
  {
    name: 'lower, random, casts',
    build: (d) =>
      sql`${d.lower(raw('a'))}, ${d.random()}, ${d.castNumber(raw('b'))}, ${d.castText(raw('c'))}`,
    sqlite: ['LOWER(a), RANDOM(), CAST(b AS NUMERIC), CAST(c AS TEXT)', []],
    postgres: ['LOWER(a), RANDOM(), CAST(b AS DOUBLE PRECISION), CAST(c AS TEXT)', []],
  },
  {
    name: 'castColumn per storage class',
    build: (d) =>
      join(
        (['text', 'number', 'bool', 'json', 'blob'] as const).map((k) => d.castColumn(param(k), k)),
      ),
    sqlite: [
      'CAST(? AS TEXT), CAST(? AS NUMERIC), ?, ?, ?',
      ['text', 'number', 'bool', 'json', 'blob'],
    ],
    postgres: [
      'CAST($1 AS TEXT), CAST($2 AS DOUBLE PRECISION), CAST($3 AS BOOLEAN), CAST($4 AS JSON), CAST($5 AS BYTEA)',
      ['text', 'number', 'bool', 'json', 'blob'],
    ],
  },
  {
    name: 'jsonAsText',
    build: (d) => d.jsonAsText(col),
    sqlite: ['"t"."data"', []],
    postgres: ['CAST("t"."data" AS TEXT)', []],
  },
  {
    name: 'typedNumber',
    build: (d) => sql`${d.typedNumber(param(10))} > ${d.typedNumber(param(5))}`,
    sqlite: ['? > ?', [10, 5]],
    postgres: ['CAST($1 AS DOUBLE PRECISION) > CAST($2 AS DOUBLE PRECISION)', [10, 5]],
  },
  {
    name: 'sortDirection: NULLs first ascending, last descending',
    build: (d) => sql`a ${d.sortDirection(false)}, b ${d.sortDirection(true)}`,
    sqlite: ['a ASC, b DESC', []],
    postgres: ['a ASC NULLS FIRST, b DESC NULLS LAST', []],
  },
  {
    name: 'strftime',
    build: (d) => d.strftime(param('%Y-%m'), column('t', 'created'), []),
    sqlite: ['strftime(?, "t"."created")', ['%Y-%m']],
    postgres: [
      `to_char(CAST(substring(CAST("t"."created" AS TEXT) from $1) AS TIMESTAMPTZ) AT TIME ZONE 'UTC', $2)`,
      [STRFTIME_TIME, 'YYYY"-"MM'],
    ],
  },
]

describe('dialects', () => {
  it.each(cases)('$name', ({ build, sqlite, postgres }) => {
    const s = sqliteDialect.compile(build(sqliteDialect))
    const p = postgresDialect.compile(build(postgresDialect))
    expect([s.sql, s.params]).toEqual(sqlite)
    expect([p.sql, p.params]).toEqual(postgres)
  })

  it('defines columns per storage class', () => {
    const kinds = ['text', 'number', 'bool', 'json', 'blob'] as const
    expect(kinds.map((k) => sqliteDialect.columnDefinition(k))).toEqual([
      "TEXT DEFAULT '' NOT NULL",
      'NUMERIC DEFAULT 0 NOT NULL',
      'BOOLEAN DEFAULT FALSE NOT NULL',
      'JSON DEFAULT NULL',
      'BLOB DEFAULT NULL',
    ])
    expect(kinds.map((k) => postgresDialect.columnDefinition(k))).toEqual([
      "TEXT DEFAULT '' NOT NULL",
      'DOUBLE PRECISION DEFAULT 0 NOT NULL',
      'BOOLEAN DEFAULT FALSE NOT NULL',
      'JSON DEFAULT NULL',
      'BYTEA DEFAULT NULL',
    ])
  })

  it('quotes identifiers and rejects NUL', () => {
    for (const d of [sqliteDialect, postgresDialect]) {
      expect(d.quoteIdent('my "table"')).toBe('"my ""table"""')
      expect(() => d.quoteIdent('a\0b')).toThrow('invalid SQL identifier')
      expect(() => d.quoteIdent('')).toThrow('invalid SQL identifier')
    }
  })

  it('has a rowid on both (PostgreSQL: the _rowid_ identity column of collection tables)', () => {
    expect(sqliteDialect.compile(sqliteDialect.rowid('p')!).sql).toBe('"p"."_rowid_"')
    expect(postgresDialect.compile(postgresDialect.rowid('p')!).sql).toBe('"p"."_rowid_"')
  })

  it('builds JSON paths and to_char patterns', () => {
    expect(sqliteJsonPath([])).toBe('$')
    expect(sqliteJsonPath(['a', 'b', 2])).toBe('$.a.b[2]')
    expect(() => sqliteJsonPath(['a"b'])).toThrow('unsupported JSON key')
    expect(toCharPattern('%Y-%m-%d %H:%M:%S')).toBe('YYYY"-"MM"-"DD" "HH24":"MI":"SS')
    expect(toCharPattern('100%%')).toBe('"100%"')
    expect(() => toCharPattern('%s')).toThrow('not supported')
    expect(() => postgresDialect.strftime(param('%Y'), raw('x'), [param('+1 day')])).toThrow()
  })

  it('lets strftime read only SQLite time forms on PostgreSQL (others are NULL, not a cast error)', () => {
    const time = new RegExp(STRFTIME_TIME)
    for (const v of ['now', 'NOW', '2024-05-06', '2024-05-06 10:11', '2024-05-06T10:11:12.345Z'])
      expect(v).toMatch(time)
    expect('2024-05-06 10:11:12+02:00').toMatch(time)
    for (const v of [
      '',
      'bob',
      '123',
      '2024-13-01',
      '2024-05-06 24:00',
      "2024-05-06'; --",
      'x2024-05-06',
    ])
      expect(v).not.toMatch(time)
  })

  it('runs the SQLite functions for real', () => {
    const db = new Database(':memory:')
    db.exec(
      `CREATE TABLE "t" ("data" ${sqliteDialect.columnDefinition('json')}, "a" ${sqliteDialect.columnDefinition('text')})`,
    )
    db.prepare('INSERT INTO "t" ("data", "a") VALUES (?, ?)').run(
      '{"x":[10,20],"y":"Ab_c"}',
      'Hello',
    )
    db.prepare('INSERT INTO "t" ("data") VALUES (NULL)').run()
    const d = sqliteDialect
    const q = d.compile(
      sql`SELECT ${d.jsonExtract(col, ['x', 1])} AS x1, ${d.jsonArrayLength(d.jsonExtract(col, ['x']))} AS n,
        ${d.like(column('t', 'a'), param('%ELL%'), false)} AS l, ${d.like(d.jsonExtract(col, ['y']), param('%b\\_c'), false)} AS e
        FROM "t" ORDER BY ${d.rowid('t')!}`,
    )
    expect(db.prepare(q.sql).all(...q.params)).toEqual([
      { x1: 20, n: 2, l: 1, e: 1 },
      { x1: null, n: 0, l: 0, e: null },
    ])
  })
})
