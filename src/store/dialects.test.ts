import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import type { Dialect } from './dialect.js'
import { postgresDialect, STRFTIME_TIME } from './postgres/postgres-dialect.js'
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
      sql`${d.lower(raw('a'))}, ${d.random()}, ${d.castNumber({ sql: raw('b'), kind: 'real', affinity: null })}, ${d.castText(raw('c'))}`,
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
    name: 'strftime with a modifier',
    build: (d) => d.strftime(param('%Y-%m'), column('t', 'created'), [param('+1 day')]),
    sqlite: ['strftime(?, "t"."created", ?)', ['%Y-%m', '+1 day']],
    postgres: [
      `(SELECT CASE WHEN "t" IS NULL THEN NULL ELSE to_char("t", $1) || CAST($2 AS TEXT) || to_char("t", $3) END FROM (SELECT (SELECT "t" + CAST(substring($4 from '^[+-]?[0-9]+(?:[.][0-9]*)?') AS DOUBLE PRECISION) * interval '1 day' FROM (SELECT CAST(substring(CAST("t"."created" AS TEXT) from $5) AS TIMESTAMPTZ) AT TIME ZONE 'UTC' AS "t" OFFSET 0) AS "_t") AS "t" OFFSET 0) AS "_t")`,
      ['YYYY', '-', 'MM', '+1 day', STRFTIME_TIME],
    ],
  },
  {
    name: 'compareAsSqlite: a number column below a text column (NUMERIC affinity reads the text)',
    build: (d) =>
      d.compareAsSqlite(
        raw('native'),
        { sql: column('t', 'n'), kind: 'numeric', affinity: 'numeric' },
        '<',
        { sql: column('t', 'a'), kind: 'text', affinity: 'text' },
      ),
    sqlite: ['native', []],
    postgres: [
      '(SELECT CASE WHEN "lv" IS NULL OR "rv" IS NULL THEN NULL ELSE ROW((CASE WHEN "lv" IS NULL THEN NULL ELSE 1 END), COALESCE("lv", 0), COALESCE(\'\', \'\')) < ROW((CASE WHEN "rv" ~ $1 THEN 1 ELSE (CASE WHEN "rv" IS NULL THEN NULL ELSE 2 END) END), COALESCE((CASE WHEN "rv" ~ $2 THEN CAST("rv" AS DOUBLE PRECISION) ELSE 0 END), 0), COALESCE("rv", \'\')) END FROM (SELECT CAST("t"."n" AS DOUBLE PRECISION) AS "lv", CAST("t"."a" AS TEXT) AS "rv" OFFSET 0) AS "_c")',
      [
        '^\\s*[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$',
        '^\\s*[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$',
      ],
    ],
  },
  {
    name: 'compareAsSqlite: a JSON value IS NOT a bound number (its kind read from the JSON)',
    build: (d) =>
      d.compareAsSqlite(
        raw('native'),
        {
          sql: d.jsonExtract(col, ['x']),
          kind: 'json',
          affinity: null,
          json: { doc: col, path: ['x'] },
        },
        'IS NOT',
        { sql: param(2.5), kind: 'real', affinity: null },
      ),
    sqlite: ['native', []],
    postgres: [
      '(NOT (SELECT CASE WHEN COALESCE("ly", \'null\') = \'null\' OR "rv" IS NULL THEN COALESCE("ly", \'null\') = \'null\' AND "rv" IS NULL ELSE ROW((CASE "ly" WHEN \'number\' THEN 1 WHEN \'boolean\' THEN 1 WHEN \'string\' THEN 2 WHEN \'object\' THEN 2 WHEN \'array\' THEN 2 END), COALESCE((CASE "ly" WHEN \'number\' THEN CAST("lx" AS DOUBLE PRECISION) WHEN \'boolean\' THEN (CASE WHEN "lx" = \'true\' THEN 1.0 ELSE 0.0 END) END), 0), COALESCE((CASE WHEN "ly" IN (\'string\', \'object\', \'array\') THEN "lx" END), \'\')) = ROW((CASE WHEN "rv" IS NULL THEN NULL ELSE 1 END), COALESCE("rv", 0), COALESCE(\'\', \'\')) END FROM (SELECT json_typeof("t"."data" #> $1::text[]) AS "ly", ("t"."data" #>> $2::text[]) AS "lx", CAST($3 AS DOUBLE PRECISION) AS "rv" OFFSET 0) AS "_c"))',
      [['x'], ['x'], 2.5],
    ],
  },
  {
    name: 'sqliteText: a bound number as a REAL (5.0), a bool as 1/0',
    build: (d) =>
      sql`${d.sqliteText({ sql: param(5), kind: 'real', affinity: null })}, ${d.sqliteText({ sql: column('t', 'b'), kind: 'bool', affinity: 'numeric' })}`,
    sqlite: ['?, "t"."b"', [5]],
    postgres: [
      '(SELECT CASE WHEN "f" = trunc("f") AND abs("f") < 1e17 THEN CAST(CAST("f" AS BIGINT) AS TEXT) || \'.0\' ELSE regexp_replace(CAST("f" AS TEXT), \'^(-?[0-9]+)e\', \'\\1.0e\') END FROM (SELECT CAST($1 AS DOUBLE PRECISION) AS "f" OFFSET 0) AS "_f"), (CASE WHEN "t"."b" THEN \'1\' WHEN NOT "t"."b" THEN \'0\' END)',
      [5],
    ],
  },
  {
    name: 'castNumber: text by its leading number, as CAST(x AS NUMERIC)',
    build: (d) => d.castNumber({ sql: column('t', 'a'), kind: 'text', affinity: 'text' }),
    sqlite: ['CAST("t"."a" AS NUMERIC)', []],
    postgres: [
      '(SELECT CASE WHEN "x" IS NULL THEN NULL ELSE COALESCE(CAST(substring("x" from $1) AS DOUBLE PRECISION), 0) END FROM (SELECT CAST("t"."a" AS TEXT) AS "x" OFFSET 0) AS "_n")',
      ['^\\s*[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?'],
    ],
  },
  {
    name: 'sortKeys: a JSON document by class, number, text',
    build: (d) =>
      join(
        d
          .sortKeys({
            sql: d.jsonExtract(col, []),
            kind: 'json',
            affinity: null,
            json: { doc: col, path: [] },
          })
          .map((k) => sql`${k} ASC`),
      ),
    sqlite: ['json_extract("t"."data", ?) ASC', ['$']],
    postgres: [
      '(SELECT (CASE "y" WHEN \'number\' THEN 1 WHEN \'boolean\' THEN 1 WHEN \'string\' THEN 2 WHEN \'object\' THEN 2 WHEN \'array\' THEN 2 END) FROM (SELECT json_typeof("t"."data" #> $1::text[]) AS "y", ("t"."data" #>> $2::text[]) AS "x" OFFSET 0) AS "_k") ASC, (SELECT (CASE "y" WHEN \'number\' THEN CAST("x" AS DOUBLE PRECISION) WHEN \'boolean\' THEN (CASE WHEN "x" = \'true\' THEN 1.0 ELSE 0.0 END) END) FROM (SELECT json_typeof("t"."data" #> $3::text[]) AS "y", ("t"."data" #>> $4::text[]) AS "x" OFFSET 0) AS "_k") ASC, (SELECT (CASE WHEN "y" IN (\'string\', \'object\', \'array\') THEN "x" END) FROM (SELECT json_typeof("t"."data" #> $5::text[]) AS "y", ("t"."data" #>> $6::text[]) AS "x" OFFSET 0) AS "_k") ASC',
      [[], [], [], [], [], []],
    ],
  },
  {
    name: 'math: NULL outside the domain',
    build: (d) => d.math('ASIN', raw('x')),
    sqlite: ['ASIN(x)', []],
    postgres: [
      '(SELECT CASE WHEN "v" BETWEEN -1 AND 1 THEN ASIN("v") END FROM (SELECT x AS "v" OFFSET 0) AS "m")',
      [],
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

  it('builds JSON paths and refuses what strftime cannot do on PostgreSQL', () => {
    expect(sqliteJsonPath([])).toBe('$')
    expect(sqliteJsonPath(['a', 'b', 2])).toBe('$.a.b[2]')
    expect(() => sqliteJsonPath(['a"b'])).toThrow('unsupported JSON key')
    expect(() => postgresDialect.strftime(param('%J'), raw('x'), [])).toThrow('not supported')
    expect(() => postgresDialect.strftime(param('%Y'), raw('x'), [param('+1 month')])).toThrow(
      'not supported',
    )
    expect(() => postgresDialect.strftime(raw("'%Y'"), raw('x'), [])).toThrow('literal')
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
