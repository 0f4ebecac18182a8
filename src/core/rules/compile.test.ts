import { describe, expect, it } from 'vitest'
import { postgresDialect } from '../../store/postgres/postgres-dialect.js'
import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'
import type { Dialect } from '../../store/dialect.js'
import { ApiError } from '../errors.js'
import { internalRequest } from '../request-info.js'
import { join } from '../../store/sql.js'
import { compileFilter, compileSort, validateRule, type RuleContext } from './index.js'
import { context, schema, userRequest } from './test-fixtures.js'

type Expected = [sql: string, params: unknown[]]

interface Case {
  filter: string
  ctx?: Partial<RuleContext>
  sqlite: Expected
  postgres: Expected
}

/** `jsonb_array_elements_text` over `x`, guarded for non-arrays (PostgreSQL's json_each). */
const pgEach = (x: string) =>
  `jsonb_array_elements_text(CASE WHEN jsonb_typeof(${x}) = 'array' THEN ${x} ELSE '[]'::jsonb END)`

const user = { request: userRequest() }

function compile(dialect: Dialect, c: Pick<Case, 'filter' | 'ctx'>) {
  return dialect.compile(compileFilter(c.filter, context(dialect, c.ctx)))
}

function run(cases: Case[]) {
  it.each(cases)('$filter', (c) => {
    const s = compile(sqliteDialect, c)
    const p = compile(postgresDialect, c)
    expect([s.sql, s.params]).toEqual(c.sqlite)
    expect([p.sql, p.params]).toEqual(c.postgres)
  })
}

describe('compileFilter: own fields, literals and null semantics', () => {
  run([
    {
      filter: 'title = "a"',
      sqlite: ['"p"."title" = ?', ['a']],
      postgres: ['"p"."title" = $1', ['a']],
    },
    {
      filter: "title != 'a'",
      sqlite: ['"p"."title" IS NOT ?', ['a']],
      postgres: ['"p"."title" IS DISTINCT FROM $1', ['a']],
    },
    {
      filter: 'title = ""',
      sqlite: [`("p"."title" = '' OR "p"."title" IS NULL)`, []],
      postgres: [`("p"."title" = '' OR "p"."title" IS NULL)`, []],
    },
    {
      filter: 'null != title',
      sqlite: [`("p"."title" IS NOT '' AND "p"."title" IS NOT NULL)`, []],
      postgres: [`("p"."title" IS DISTINCT FROM '' AND "p"."title" IS NOT NULL)`, []],
    },
    {
      filter: 'views = null',
      sqlite: ['"p"."views" IS NULL', []],
      postgres: ['"p"."views" IS NULL', []],
    },
    {
      filter: 'title = status',
      sqlite: [`COALESCE("p"."title", '') = COALESCE("p"."status", '')`, []],
      postgres: [`COALESCE("p"."title", '') = COALESCE("p"."status", '')`, []],
    },
    {
      filter: 'views != views',
      sqlite: ['"p"."views" IS NOT "p"."views"', []],
      postgres: ['"p"."views" IS DISTINCT FROM "p"."views"', []],
    },
    { filter: "null = ''", sqlite: ["'' = ''", []], postgres: ["'' = ''", []] },
    { filter: "'' != null", sqlite: ["'' <> ''", []], postgres: ["'' <> ''", []] },
    {
      filter: 'views >= 1.5 && views < -2 || views <= 0',
      sqlite: ['(("p"."views" >= ? AND "p"."views" < ?) OR "p"."views" <= ?)', [1.5, -2, 0]],
      postgres: ['(("p"."views" >= $1 AND "p"."views" < $2) OR "p"."views" <= $3)', [1.5, -2, 0]],
    },
    {
      filter: 'published = true && (published != false || id > 5)',
      sqlite: ['("p"."published" = ? AND ("p"."published" IS NOT ? OR "p"."id" > ?))', [1, 0, 5]],
      postgres: [
        '("p"."published" = $1 AND ("p"."published" IS DISTINCT FROM $2 OR "p"."id" > $3))',
        [true, false, 5],
      ],
    },
    {
      filter: 'data.a.b.0 = "x"',
      sqlite: ['json_extract("p"."data", ?) IS ?', ['$.a.b[0]', 'x']],
      postgres: ['("p"."data" #>> $1::text[]) IS NOT DISTINCT FROM $2', [['a', 'b', '0'], 'x']],
    },
    {
      filter: 'data.a.99999999999999999999 = 1',
      sqlite: ['json_extract("p"."data", ?) IS ?', ['$.a."99999999999999999999"', 1]],
      postgres: [
        '("p"."data" #>> $1::text[]) IS NOT DISTINCT FROM $2',
        [['a', '99999999999999999999'], 1],
      ],
    },
    {
      filter: 'data = null',
      sqlite: ['"p"."data" IS NULL', []],
      postgres: ['"p"."data" IS NOT DISTINCT FROM NULL', []],
    },
    {
      filter: 'geo.lat > 10',
      sqlite: ['json_extract("p"."geo", ?) > ?', ['$.lat', 10]],
      postgres: ['("p"."geo" #>> $1::text[]) > $2', [['lat'], 10]],
    },
    {
      filter: 'title ~ "a_b\\\\c" && title !~ "x"',
      sqlite: [
        `("p"."title" LIKE ? ESCAPE '\\' AND "p"."title" NOT LIKE ? ESCAPE '\\')`,
        ['%a\\_b\\\\c%', '%x%'],
      ],
      postgres: [
        `(CAST("p"."title" AS TEXT) ILIKE $1 ESCAPE '\\' AND CAST("p"."title" AS TEXT) NOT ILIKE $2 ESCAPE '\\')`,
        ['%a\\_b\\\\c%', '%x%'],
      ],
    },
    {
      filter: 'title ~ "abc%" && title ~ "100\\%" && title ~ "1\\\\%"',
      sqlite: [
        `("p"."title" LIKE ? ESCAPE '\\' AND "p"."title" LIKE ? ESCAPE '\\' AND "p"."title" LIKE ? ESCAPE '\\')`,
        ['abc%', '%100\\%%', '1\\\\%'],
      ],
      postgres: [
        `(CAST("p"."title" AS TEXT) ILIKE $1 ESCAPE '\\' AND CAST("p"."title" AS TEXT) ILIKE $2 ESCAPE '\\' AND CAST("p"."title" AS TEXT) ILIKE $3 ESCAPE '\\')`,
        ['abc%', '%100\\%%', '1\\\\%'],
      ],
    },
    {
      filter: 'title ~ status',
      sqlite: [`"p"."title" LIKE ('%' || "p"."status" || '%') ESCAPE '\\'`, []],
      postgres: [`CAST("p"."title" AS TEXT) ILIKE ('%' || "p"."status" || '%') ESCAPE '\\'`, []],
    },
    {
      filter: 'title:lower = "abc"',
      sqlite: ['LOWER("p"."title") = ?', ['abc']],
      postgres: ['LOWER("p"."title") = $1', ['abc']],
    },
    {
      filter: 'tags:length > 1 && status:length = 0',
      sqlite: [
        `(COALESCE(json_array_length("p"."tags"), 0) > ? AND (CASE WHEN COALESCE("p"."status", '') = '' THEN 0 ELSE 1 END) = ?)`,
        [1, 0],
      ],
      postgres: [
        `(jsonb_array_length(CASE WHEN jsonb_typeof("p"."tags") = 'array' THEN "p"."tags" ELSE '[]'::jsonb END) > $1 AND (CASE WHEN COALESCE("p"."status", '') = '' THEN 0 ELSE 1 END) = $2)`,
        [1, 0],
      ],
    },
    {
      filter: 'tags ~ "x"',
      sqlite: [`"p"."tags" LIKE ? ESCAPE '\\'`, ['%x%']],
      postgres: [`CAST("p"."tags" AS TEXT) ILIKE $1 ESCAPE '\\'`, ['%x%']],
    },
    {
      filter: 'tags:each ?= "x"',
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN json_each("p"."tags") AS "_j1" ON 1 = 1 WHERE "_j1"."value" = ?)',
        ['x'],
      ],
      postgres: [
        `EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN ${pgEach('"p"."tags"')} AS "_j1"("value") ON 1 = 1 WHERE "_j1"."value" = $1)`,
        ['x'],
      ],
    },
    {
      filter: 'tags:each = "x"',
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s4" LEFT JOIN json_each("p"."tags") AS "_j1" ON 1 = 1 WHERE ("_j1"."value" = ? AND ' +
          'NOT EXISTS (SELECT 1 FROM (SELECT 1) AS "_s3" LEFT JOIN json_each("p"."tags") AS "_j2" ON 1 = 1 WHERE NOT ("_j2"."value" = ?))))',
        ['x', 'x'],
      ],
      postgres: [
        `EXISTS (SELECT 1 FROM (SELECT 1) AS "_s4" LEFT JOIN ${pgEach('"p"."tags"')} AS "_j1"("value") ON 1 = 1 WHERE ("_j1"."value" = $1 AND ` +
          `NOT EXISTS (SELECT 1 FROM (SELECT 1) AS "_s3" LEFT JOIN ${pgEach('"p"."tags"')} AS "_j2"("value") ON 1 = 1 WHERE NOT ("_j2"."value" = $2))))`,
        ['x', 'x'],
      ],
    },
    {
      filter: 'id = true || id = false || id = null',
      sqlite: ['("p"."id" = ? OR "p"."id" = ? OR ("p"."id" = \'\' OR "p"."id" IS NULL))', [1, 0]],
      postgres: [
        '("p"."id" = $1 OR "p"."id" = $2 OR ("p"."id" = \'\' OR "p"."id" IS NULL))',
        [true, false],
      ],
    },
  ])
})

describe('compileFilter: @request values and macros', () => {
  run([
    {
      filter: '@request.auth.id != "" && author = @request.auth.id',
      ctx: user,
      sqlite: [`(? IS NOT '' AND "p"."author" = ?)`, ['u1', 'u1']],
      postgres: [`($1 IS DISTINCT FROM '' AND "p"."author" = $2)`, ['u1', 'u1']],
    },
    {
      filter: '@request.auth.id != "" && author = @request.auth.id',
      ctx: { request: internalRequest() },
      sqlite: [`('' <> '' AND ("p"."author" = '' OR "p"."author" IS NULL))`, []],
      postgres: [`('' <> '' AND ("p"."author" = '' OR "p"."author" IS NULL))`, []],
    },
    {
      filter:
        '@request.auth.verified = true && @request.auth.collectionName = "users" && @request.auth.age > 18',
      ctx: user,
      sqlite: ['(? = ? AND ? = ? AND ? > ?)', [1, 1, 'users', 'users', 30, 18]],
      postgres: ['($1 = $2 AND $3 = $4 AND $5 > $6)', [true, true, 'users', 'users', 30, 18]],
    },
    {
      filter: '@request.auth.roles:each ?= "b"',
      ctx: user,
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN json_each(?) AS "_j1" ON 1 = 1 WHERE "_j1"."value" = ?)',
        ['["a","b"]', 'b'],
      ],
      postgres: [
        `EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN ${pgEach('$1').replace('THEN $1', 'THEN $2')} AS "_j1"("value") ON 1 = 1 WHERE "_j1"."value" = $3)`,
        ['["a","b"]', '["a","b"]', 'b'],
      ],
    },
    {
      filter:
        '@request.body.views > 3 && @request.body.title:isset = true && @request.body.tags:length = 2 && @request.body.nope = null',
      ctx: { request: userRequest({ body: { views: '5', title: 'T', tags: ['x', 'y'] } }) },
      sqlite: [`(? > ? AND ? = ? AND ? = ? AND '' = '')`, [5, 3, 1, 1, 2, 2]],
      postgres: [`($1 > $2 AND $3 = $4 AND $5 = $6 AND '' = '')`, [5, 3, true, true, 2, 2]],
    },
    {
      filter:
        '@request.query.page = "2" && @request.headers.x_token != "" && @request.method = "GET" && @request.context != "expand"',
      ctx: { request: internalRequest({ query: { page: '2' }, headers: { x_token: 't' } }) },
      sqlite: [
        `(? = ? AND ? IS NOT '' AND ? = ? AND ? IS NOT ?)`,
        ['2', '2', 't', 'GET', 'GET', 'default', 'expand'],
      ],
      postgres: [
        `($1 = $2 AND $3 IS DISTINCT FROM '' AND $4 = $5 AND $6 IS DISTINCT FROM $7)`,
        ['2', '2', 't', 'GET', 'GET', 'default', 'expand'],
      ],
    },
    {
      filter: '@request.body.title:changed = true',
      ctx: { request: userRequest({ body: { title: 'T' } }) },
      sqlite: ['(? = ? AND ? IS NOT "p"."title") = ?', [1, 1, 'T', 1]],
      postgres: ['($1 = $2 AND $3 IS DISTINCT FROM "p"."title") = $4', [true, true, 'T', true]],
    },
    {
      filter: '@request.body.title:lower ~ title:lower',
      ctx: { request: userRequest({ body: { title: 'T' } }) },
      sqlite: [`LOWER(?) LIKE ('%' || LOWER("p"."title") || '%') ESCAPE '\\'`, ['T']],
      postgres: [
        `CAST(LOWER($1) AS TEXT) ILIKE ('%' || LOWER("p"."title") || '%') ESCAPE '\\'`,
        ['T'],
      ],
    },
    {
      filter: 'created >= @todayStart && created <= @monthEnd && @month = 2 && @weekday = 4',
      sqlite: [
        '("p"."created" >= ? AND "p"."created" <= ? AND ? = ? AND ? = ?)',
        ['2024-02-29 00:00:00.000Z', '2024-02-29 23:59:59.999Z', 2, 2, 4, 4],
      ],
      postgres: [
        '("p"."created" >= $1 AND "p"."created" <= $2 AND $3 = $4 AND $5 = $6)',
        ['2024-02-29 00:00:00.000Z', '2024-02-29 23:59:59.999Z', 2, 2, 4, 4],
      ],
    },
  ])
})

describe('compileFilter: relations, back-relations and @collection', () => {
  run([
    {
      filter: 'author.name = "Ann"',
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author" WHERE "_r1"."name" = ?)',
        ['Ann'],
      ],
      postgres: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author" WHERE "_r1"."name" = $1)',
        ['Ann'],
      ],
    },
    {
      filter: 'author.id = "u1"',
      sqlite: ['"p"."author" = ?', ['u1']],
      postgres: ['"p"."author" = $1', ['u1']],
    },
    {
      filter: 'editors.org.name ?= "Acme" && author.org.name = editors.org.name',
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s10" LEFT JOIN json_each("p"."editors") AS "_j1" ON 1 = 1 ' +
          'LEFT JOIN "users" AS "_r2" ON "_r2"."id" = "_j1"."value" LEFT JOIN "orgs" AS "_r3" ON "_r3"."id" = "_r2"."org" ' +
          'LEFT JOIN "users" AS "_r4" ON "_r4"."id" = "p"."author" LEFT JOIN "orgs" AS "_r5" ON "_r5"."id" = "_r4"."org" ' +
          `WHERE ("_r3"."name" = ? AND (COALESCE("_r5"."name", '') = COALESCE("_r3"."name", '') AND ` +
          'NOT EXISTS (SELECT 1 FROM (SELECT 1) AS "_s9" LEFT JOIN json_each("p"."editors") AS "_j6" ON 1 = 1 ' +
          'LEFT JOIN "users" AS "_r7" ON "_r7"."id" = "_j6"."value" LEFT JOIN "orgs" AS "_r8" ON "_r8"."id" = "_r7"."org" ' +
          `WHERE NOT (COALESCE("_r5"."name", '') = COALESCE("_r8"."name", ''))))))`,
        ['Acme'],
      ],
      postgres: [
        `EXISTS (SELECT 1 FROM (SELECT 1) AS "_s10" LEFT JOIN ${pgEach('"p"."editors"')} AS "_j1"("value") ON 1 = 1 ` +
          'LEFT JOIN "users" AS "_r2" ON "_r2"."id" = "_j1"."value" LEFT JOIN "orgs" AS "_r3" ON "_r3"."id" = "_r2"."org" ' +
          'LEFT JOIN "users" AS "_r4" ON "_r4"."id" = "p"."author" LEFT JOIN "orgs" AS "_r5" ON "_r5"."id" = "_r4"."org" ' +
          `WHERE ("_r3"."name" = $1 AND (COALESCE("_r5"."name", '') = COALESCE("_r3"."name", '') AND ` +
          `NOT EXISTS (SELECT 1 FROM (SELECT 1) AS "_s9" LEFT JOIN ${pgEach('"p"."editors"')} AS "_j6"("value") ON 1 = 1 ` +
          'LEFT JOIN "users" AS "_r7" ON "_r7"."id" = "_j6"."value" LEFT JOIN "orgs" AS "_r8" ON "_r8"."id" = "_r7"."org" ' +
          `WHERE NOT (COALESCE("_r5"."name", '') = COALESCE("_r8"."name", ''))))))`,
        ['Acme'],
      ],
    },
    {
      filter: 'comments_via_post.message ?~ "hi" && meta_via_post.note = "n"',
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s3" LEFT JOIN "comments" AS "_b1" ON "_b1"."post" = "p"."id" ' +
          'LEFT JOIN "meta" AS "_b2" ON "_b2"."post" = "p"."id" ' +
          `WHERE ("_b1"."message" LIKE ? ESCAPE '\\' AND "_b2"."note" = ?))`,
        ['%hi%', 'n'],
      ],
      postgres: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s3" LEFT JOIN "comments" AS "_b1" ON "_b1"."post" = "p"."id" ' +
          'LEFT JOIN "meta" AS "_b2" ON "_b2"."post" = "p"."id" ' +
          `WHERE (CAST("_b1"."message" AS TEXT) ILIKE $1 ESCAPE '\\' AND "_b2"."note" = $2))`,
        ['%hi%', 'n'],
      ],
    },
    {
      filter:
        '@collection.comments.post ?= id && @collection.comments:c.author ?= @request.auth.id',
      ctx: user,
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s3" LEFT JOIN "comments" AS "_c1" ON 1 = 1 LEFT JOIN "comments" AS "_c2" ON 1 = 1 ' +
          `WHERE (COALESCE("_c1"."post", '') = COALESCE("p"."id", '') AND "_c2"."author" = ?))`,
        ['u1'],
      ],
      postgres: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s3" LEFT JOIN "comments" AS "_c1" ON 1 = 1 LEFT JOIN "comments" AS "_c2" ON 1 = 1 ' +
          `WHERE (COALESCE("_c1"."post", '') = COALESCE("p"."id", '') AND "_c2"."author" = $1))`,
        ['u1'],
      ],
    },
    {
      filter: '@request.auth.org.name = "Acme" && @request.body.author.name ?= "Bob"',
      ctx: { request: userRequest({ body: { author: 'u2' } }) },
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s4" LEFT JOIN "users" AS "_a1" ON "_a1"."id" = ? ' +
          'LEFT JOIN "orgs" AS "_r2" ON "_r2"."id" = "_a1"."org" LEFT JOIN "users" AS "_r3" ON "_r3"."id" = ? ' +
          'WHERE ("_r2"."name" = ? AND "_r3"."name" = ?))',
        ['u1', 'u2', 'Acme', 'Bob'],
      ],
      postgres: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s4" LEFT JOIN "users" AS "_a1" ON "_a1"."id" = $1 ' +
          'LEFT JOIN "orgs" AS "_r2" ON "_r2"."id" = "_a1"."org" LEFT JOIN "users" AS "_r3" ON "_r3"."id" = $2 ' +
          'WHERE ("_r2"."name" = $3 AND "_r3"."name" = $4))',
        ['u1', 'u2', 'Acme', 'Bob'],
      ],
    },
    {
      filter: 'author.email = "a@b.c"',
      ctx: { ...user, restricted: true },
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author" ' +
          'WHERE ("_r1"."email" = ? AND "_r1"."emailVisibility" = TRUE))',
        ['a@b.c'],
      ],
      postgres: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author" ' +
          'WHERE ("_r1"."email" = $1 AND "_r1"."emailVisibility" = TRUE))',
        ['a@b.c'],
      ],
    },
  ])
})

describe('compileFilter: the number of back-related records', () => {
  const listable = schema()
  listable.comments!.listRule = 'message != ""'
  const findListable = (n: string) =>
    Object.values(listable).find((c) => c.id === n || c.name === n)
  run([
    {
      filter: 'comments_via_post:length = 0',
      sqlite: ['(SELECT COUNT(*) FROM "comments" AS "_b1" WHERE "_b1"."post" = "p"."id") = ?', [0]],
      postgres: [
        '(SELECT COUNT(*) FROM "comments" AS "_b1" WHERE "_b1"."post" = "p"."id") = $1',
        [0],
      ],
    },
    {
      filter: 'comments_via_post.id:length > 2 && meta_via_post:length = 1',
      sqlite: [
        '((SELECT COUNT(*) FROM "comments" AS "_b1" WHERE "_b1"."post" = "p"."id") > ? AND ' +
          '(SELECT COUNT(*) FROM "meta" AS "_b2" WHERE "_b2"."post" = "p"."id") = ?)',
        [2, 1],
      ],
      postgres: [
        '((SELECT COUNT(*) FROM "comments" AS "_b1" WHERE "_b1"."post" = "p"."id") > $1 AND ' +
          '(SELECT COUNT(*) FROM "meta" AS "_b2" WHERE "_b2"."post" = "p"."id") = $2)',
        [2, 1],
      ],
    },
    {
      // A back-relation reached through a relation counts per joined row.
      filter: 'author.comments_via_author:length >= 1',
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s3" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author" ' +
          'WHERE (SELECT COUNT(*) FROM "comments" AS "_b2" WHERE "_b2"."author" = "_r1"."id") >= ?)',
        [1],
      ],
      postgres: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s3" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author" ' +
          'WHERE (SELECT COUNT(*) FROM "comments" AS "_b2" WHERE "_b2"."author" = "_r1"."id") >= $1)',
        [1],
      ],
    },
    {
      // A client filter counts only the records the requester may list.
      filter: 'comments_via_post.id:length = 0',
      ctx: { ...user, restricted: true, findCollection: findListable },
      sqlite: [
        '(SELECT COUNT(*) FROM "comments" AS "_b1" WHERE "_b1"."post" = "p"."id" AND ' +
          `(("_b1"."message" IS NOT '' AND "_b1"."message" IS NOT NULL))) = ?`,
        [0],
      ],
      postgres: [
        '(SELECT COUNT(*) FROM "comments" AS "_b1" WHERE "_b1"."post" = "p"."id" AND ' +
          `(("_b1"."message" IS DISTINCT FROM '' AND "_b1"."message" IS NOT NULL))) = $1`,
        [0],
      ],
    },
  ])
})

describe('compileFilter: functions', () => {
  const haversine = (p: (n: number) => string, num: string) => {
    const c = (x: string) => `CAST(${x} AS ${num})`
    const [lonA, latA, lonB, latB] = [c(p(1)), c(p(2)), c(p(3)), c(p(4))]
    return (
      `(12742 * ASIN(SQRT(POWER(SIN(RADIANS(${latB} - ${latA}) / 2), 2) + COS(RADIANS(${latA})) * ` +
      `COS(RADIANS(${latB})) * POWER(SIN(RADIANS(${lonB} - ${lonA}) / 2), 2))))`
    )
  }
  it('geoDistance', () => {
    const c = { filter: 'geoDistance(geo.lon, geo.lat, 23.32, 42.69) < 25' }
    const s = compile(sqliteDialect, c)
    const lite = (n: number) =>
      [`json_extract("p"."geo", ?)`, `json_extract("p"."geo", ?)`, '?', '?'][n - 1]!
    expect(s.sql).toBe(`${haversine(lite, 'NUMERIC')} < ?`)
    expect(s.params).toEqual([42.69, '$.lat', '$.lat', 42.69, 23.32, '$.lon', 25])
    const p = compile(postgresDialect, c)
    expect(p.sql).toContain('CAST(("p"."geo" #>> $2::text[]) AS DOUBLE PRECISION)')
    expect(p.params).toEqual([42.69, ['lat'], ['lat'], 42.69, 23.32, ['lon'], 25])
  })

  run([
    {
      filter: 'strftime("%Y-%m", created) = "2024-02"',
      sqlite: [`COALESCE(strftime(?, "p"."created"), '') = ?`, ['%Y-%m', '2024-02']],
      postgres: [
        `COALESCE(to_char(CAST(NULLIF(CAST("p"."created" AS TEXT), '') AS TIMESTAMPTZ) AT TIME ZONE 'UTC', $1), '') = $2`,
        ['YYYY"-"MM', '2024-02'],
      ],
    },
  ])

  it('strftime with modifiers (SQLite only)', () => {
    const c = { filter: "strftime('%d', created, 'start of month', '+1 day') = '02'" }
    const s = compile(sqliteDialect, c)
    expect([s.sql, s.params]).toEqual([
      `COALESCE(strftime(?, "p"."created", ?, ?), '') = ?`,
      ['%d', 'start of month', '+1 day', '02'],
    ])
  })
})

describe('compileSort', () => {
  const cases: [string, Partial<RuleContext>, Expected, Expected][] = [
    [
      '-created,+title',
      {},
      ['"p"."created" DESC, "p"."title" ASC', []],
      ['"p"."created" DESC, "p"."title" ASC', []],
    ],
    ['@random,-@rowid', {}, ['RANDOM() ASC, "p"."_rowid_" DESC', []], ['', []]],
    [
      'author.name,-editors.name,data.a:lower',
      {},
      [
        '(SELECT "_r1"."name" FROM (SELECT 1) AS "_s2" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author") ASC, ' +
          '(SELECT MAX("_r4"."name") FROM (SELECT 1) AS "_s5" LEFT JOIN json_each("p"."editors") AS "_j3" ON 1 = 1 ' +
          'LEFT JOIN "users" AS "_r4" ON "_r4"."id" = "_j3"."value") DESC, LOWER(json_extract("p"."data", ?)) ASC',
        ['$.a'],
      ],
      [
        '(SELECT "_r1"."name" FROM (SELECT 1) AS "_s2" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author") ASC, ' +
          `(SELECT MAX("_r4"."name") FROM (SELECT 1) AS "_s5" LEFT JOIN ${pgEach('"p"."editors"')} AS "_j3"("value") ON 1 = 1 ` +
          'LEFT JOIN "users" AS "_r4" ON "_r4"."id" = "_j3"."value") DESC, LOWER(("p"."data" #>> $1::text[])) ASC',
        [['a']],
      ],
    ],
    [
      '-comments_via_post:length',
      {},
      ['(SELECT COUNT(*) FROM "comments" AS "_b1" WHERE "_b1"."post" = "p"."id") DESC', []],
      ['(SELECT COUNT(*) FROM "comments" AS "_b1" WHERE "_b1"."post" = "p"."id") DESC', []],
    ],
    // A superuser sorts by the real e-mail…
    [
      '-email',
      { collection: schema().users!, alias: 'u' },
      ['"u"."email" DESC', []],
      ['"u"."email" DESC', []],
    ],
    // …a client by what its filter sees: a hidden e-mail matches nothing, so it sorts as NULL.
    [
      '-email',
      { collection: schema().users!, alias: 'u', restricted: true },
      ['CASE WHEN "u"."emailVisibility" = TRUE THEN "u"."email" END DESC', []],
      ['CASE WHEN "u"."emailVisibility" = TRUE THEN "u"."email" END DESC', []],
    ],
    [
      'author.email,-editors.email:lower',
      { restricted: true },
      [
        '(SELECT CASE WHEN "_r1"."emailVisibility" = TRUE THEN "_r1"."email" END FROM (SELECT 1) AS "_s2" ' +
          'LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author") ASC, ' +
          '(SELECT MAX(CASE WHEN "_r4"."emailVisibility" = TRUE THEN LOWER("_r4"."email") END) FROM (SELECT 1) AS "_s5" ' +
          'LEFT JOIN json_each("p"."editors") AS "_j3" ON 1 = 1 LEFT JOIN "users" AS "_r4" ON "_r4"."id" = "_j3"."value") DESC',
        [],
      ],
      [
        '(SELECT CASE WHEN "_r1"."emailVisibility" = TRUE THEN "_r1"."email" END FROM (SELECT 1) AS "_s2" ' +
          'LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author") ASC, ' +
          '(SELECT MAX(CASE WHEN "_r4"."emailVisibility" = TRUE THEN LOWER("_r4"."email") END) FROM (SELECT 1) AS "_s5" ' +
          `LEFT JOIN ${pgEach('"p"."editors"')} AS "_j3"("value") ON 1 = 1 LEFT JOIN "users" AS "_r4" ON "_r4"."id" = "_j3"."value") DESC`,
        [],
      ],
    ],
  ]
  it.each(cases)('%s', (text, over, sqlite, postgres) => {
    for (const [dialect, expected] of [
      [sqliteDialect, sqlite],
      [postgresDialect, postgres],
    ] as const) {
      if (expected[0] === '') continue
      const items = compileSort(text, context(dialect, over))
      const compiled = dialect.compile(join(items))
      expect([compiled.sql, compiled.params]).toEqual(expected)
    }
  })
})

/** The ApiError a compile throws. */
function failure(fn: () => unknown): ApiError {
  try {
    fn()
  } catch (e) {
    if (e instanceof ApiError) return e
    throw e
  }
  throw new Error('expected an ApiError')
}

describe('errors', () => {
  const filterErrors: [string, Partial<RuleContext>, number, string][] = [
    ['title =', {}, 400, 'Invalid filter: expected an operand at position 7, found end of filter.'],
    ['foo = 1', {}, 400, 'Invalid filter: unknown field "foo".'],
    ['author.nme = 1', {}, 400, 'Invalid filter: unknown field "author.nme".'],
    ['title.x = 1', {}, 400, 'Invalid filter: unknown field "title.x".'],
    ['title..x = 1', {}, 400, 'Invalid filter: invalid field path "title..x".'],
    ['@nope = 1', {}, 400, 'Invalid filter: unknown macro "@nope".'],
    ['title:upper = 1', {}, 400, 'Invalid filter: unknown modifier ":upper" in "title:upper".'],
    [
      'title:isset = 1',
      {},
      400,
      'Invalid filter: the :isset modifier applies only to @request.* fields ("title:isset").',
    ],
    [
      'status:each = 1',
      {},
      400,
      'Invalid filter: the :each modifier needs a multi-valued field ("status:each").',
    ],
    [
      'title:length = 1',
      {},
      400,
      'Invalid filter: the :length modifier needs a select, relation or file field ("title:length").',
    ],
    [
      'data:each = 1',
      {},
      400,
      'Invalid filter: the :each modifier is not supported on JSON field "data".',
    ],
    ['secret = 1', { restricted: true }, 400, 'Invalid filter: the field "secret" is hidden.'],
    [
      'author.password = 1',
      { restricted: true },
      400,
      'Invalid filter: the field "author.password" is hidden.',
    ],
    [
      'author.org.name = 1',
      { restricted: true },
      400,
      'Invalid filter: cannot filter by "author.org": only superusers can list "orgs".',
    ],
    ['@request.auth.id = 1', { restricted: true }, 403, 'Only superusers can filter by @request.'],
    [
      '@collection.posts.id = 1',
      { restricted: true },
      403,
      'Only superusers can filter by @collection.',
    ],
    // NB: a raw-text check, as in PocketBase: literals and malformed filters count too
    ['title = "@request.x"', { restricted: true }, 403, 'Only superusers can filter by @request.'],
    [
      '@request.auth.id = 1 && @collection.posts.id = (',
      { restricted: true },
      403,
      'Only superusers can filter by @collection.',
    ],
    [
      '@collection.nope.id = 1',
      {},
      400,
      'Invalid filter: unknown collection "nope" in "@collection.nope".',
    ],
    [
      '@collection.posts = 1',
      {},
      400,
      'Invalid filter: invalid field path "@collection.posts", expected @collection.<name>[:alias].<field>.',
    ],
    ['@request.nope = 1', {}, 400, 'Invalid filter: unknown field "@request.nope".'],
    [
      '@request.method:changed = 1',
      {},
      400,
      'Invalid filter: the :changed modifier applies only to @request.body fields ("@request.method:changed").',
    ],
    [
      '@request.body.nope:changed = 1',
      {},
      400,
      'Invalid filter: the :changed modifier needs a field of "posts" ("@request.body.nope:changed").',
    ],
    [
      'comments_via_author.id = 1',
      {},
      400,
      'Invalid filter: invalid back-relation "comments_via_author": "author" does not point to "posts".',
    ],
    ['nope(1) = 1', {}, 400, 'Invalid filter: unknown function "nope".'],
    [
      'comments_via_post.post.comments_via_post.post.comments_via_post.post.comments_via_post.id = 1',
      {},
      400,
      'Invalid filter: "comments_via_post.post.comments_via_post.post.comments_via_post.post.comments_via_post.id" goes through more than 6 relations.',
    ],
    [
      'geoDistance(1, 2, 3) = 1',
      {},
      400,
      'Invalid filter: geoDistance needs 4 arguments (lonA, latA, lonB, latB), got 3.',
    ],
    [
      'geoDistance(1, 2, 3, "x") = 1',
      {},
      400,
      'Invalid filter: geoDistance arguments must be numbers or fields.',
    ],
    [
      'strftime(created) = 1',
      {},
      400,
      'Invalid filter: the strftime format must be a text literal.',
    ],
    [
      'strftime("%Y", created, 1) = 1',
      {},
      400,
      'Invalid filter: strftime modifiers must be text literals.',
    ],
  ]
  it.each(filterErrors)('filter %j', (filter, over, status, message) => {
    const e = failure(() => compileFilter(filter, context(sqliteDialect, over)))
    expect([e.status, e.message, e.data]).toEqual([status, message, {}])
  })

  it('reports unsupported PostgreSQL strftime codes as a 400', () => {
    const e = failure(() => compileFilter('strftime("%s", created) = 1', context(postgresDialect)))
    expect(e.message).toBe('Invalid filter: strftime code %s is not supported on PostgreSQL.')
  })

  const sortErrors: [string, Partial<RuleContext>, Dialect, number, string][] = [
    ['a,,b', {}, sqliteDialect, 400, 'Invalid sort: empty sort field at position 2.'],
    ['@now', {}, sqliteDialect, 400, 'Invalid sort: cannot sort by "@now", it is not a field.'],
    [
      '@request.method',
      {},
      sqliteDialect,
      400,
      'Invalid sort: cannot sort by "@request.method", it is not a field.',
    ],
    [
      '@request.method',
      { restricted: true },
      sqliteDialect,
      403,
      'Only superusers can filter by @request.',
    ],
    [
      '-secret',
      { restricted: true },
      sqliteDialect,
      400,
      'Invalid sort: the field "secret" is hidden.',
    ],
    [
      'author.tokenKey',
      { restricted: true },
      sqliteDialect,
      400,
      'Invalid sort: the field "author.tokenKey" is hidden.',
    ],
    [
      'comments_via_post.author.password',
      { restricted: true },
      postgresDialect,
      400,
      'Invalid sort: the field "comments_via_post.author.password" is hidden.',
    ],
    [
      'comments_via_post.message:length',
      {},
      sqliteDialect,
      400,
      'Invalid sort: the :length modifier needs a select, relation or file field ("comments_via_post.message:length").',
    ],
    [
      '@rowid',
      {},
      postgresDialect,
      400,
      'Invalid sort: @rowid is not available for this collection.',
    ],
  ]
  it.each(sortErrors)('sort %j', (text, over, dialect, status, message) => {
    const e = failure(() => compileSort(text, context(dialect, over)))
    expect([e.status, e.message]).toEqual([status, message])
  })
})

describe('validateRule', () => {
  const { posts, users } = schema()
  const all = Object.values(schema())
  const find = (n: string) => all.find((c) => c.id === n || c.name === n)
  const cases: [string, string | null][] = [
    ['', null],
    ['@request.auth.id != "" && author = @request.auth.id', null],
    ['@request.auth.org.name = "x" && @request.body.author.name = "y"', null],
    ['secret = "hidden fields are fine in rules"', null],
    ['comments_via_post.post.comments_via_post.post.comments_via_post.post.title = "6 hops"', null],
    ['foo = 1', 'unknown field "foo"'],
    ['title = ', 'expected an operand at position 8, found end of filter'],
    ['@request.body.author.nope = 1', 'unknown field "@request.body.author.nope"'],
    ['@collection.users.org.nope = 1', 'unknown field "@collection.users.org.nope"'],
  ]
  const dialects: [string, Dialect][] = [
    ['sqlite', sqliteDialect],
    ['postgres', postgresDialect],
  ]
  describe.each(dialects)('%s', (_name, dialect) => {
    it.each(cases)('%j', (rule, expected) => {
      expect(validateRule(rule, posts!, find, dialect)).toBe(expected)
    })
    it('validates against the given collection', () => {
      expect(validateRule('email = "x" && verified = true', users!, find, dialect)).toBeNull()
      expect(validateRule('email = "x"', posts!, find, dialect)).toBe('unknown field "email"')
    })
  })
  it('compiles with the dialect it is given, never a default one', () => {
    // `%w` has no to_char equivalent: only a rule compiled for PostgreSQL can fail on it.
    const rule = 'strftime("%w", created) = "1"'
    expect(validateRule(rule, posts!, find, sqliteDialect)).toBeNull()
    expect(validateRule(rule, posts!, find, postgresDialect)).toBe(
      'strftime code %w is not supported on PostgreSQL',
    )
    // A default parameter would not count in `length`.
    expect(validateRule.length).toBe(4)
    // @ts-expect-error the dialect is required: nothing in core/rules defaults to SQLite.
    expect(() => validateRule('title != "a"', posts!, find)).toThrow(TypeError)
  })
})

describe('compiled filter cache', () => {
  it('reuses the SQL of request-independent filters and recompiles when the schema changes', () => {
    const ctx = context(sqliteDialect, { now: undefined })
    const a = compileFilter('title = "cached" && views > 3', ctx)
    expect(compileFilter('title = "cached" && views > 3', ctx)).toBe(a)
    const changed = {
      ...ctx,
      collection: { ...ctx.collection, updated: `${ctx.collection.updated}x` },
    }
    expect(compileFilter('title = "cached" && views > 3', changed)).not.toBe(a)
    const body = { request: userRequest({ body: { title: 'a' } }) }
    const fromBody = compileFilter('title = @request.body.title', { ...ctx, ...body })
    expect(compileFilter('title = @request.body.title', { ...ctx, ...body })).not.toBe(fromBody)
  })

  it('reuses rules reading only @request.auth fields per auth record', () => {
    const ctx = context(sqliteDialect, { now: undefined })
    const rule = 'title = @request.auth.id && views > @request.auth.age'
    const owner = compileFilter(rule, { ...ctx, ...user })
    expect(compileFilter(rule, { ...ctx, ...user })).toBe(owner)
    expect(sqliteDialect.compile(owner).params).toEqual(['u1', 30])
    // Another auth record (another verified token) gets its own SQL with its own values.
    const other = userRequest()
    other.auth!.record = { ...other.auth!.record, id: 'u2', age: 40 }
    const second = compileFilter(rule, { ...ctx, request: other })
    expect(second).not.toBe(owner)
    expect(sqliteDialect.compile(second).params).toEqual(['u2', 40])
    // Guests share theirs.
    const guest = internalRequest()
    const g = compileFilter(rule, { ...ctx, request: guest })
    expect(compileFilter(rule, { ...ctx, request: internalRequest() })).toBe(g)
    // A path through a relation of the auth record is compiled per request.
    const viaOrg = compileFilter('title = @request.auth.org.name', { ...ctx, ...user })
    expect(compileFilter('title = @request.auth.org.name', { ...ctx, ...user })).not.toBe(viaOrg)
  })
})
