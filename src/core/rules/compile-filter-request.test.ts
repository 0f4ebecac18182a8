/** compileFilter over @request values (auth, body, query, headers, method, context) and macros. */
import { describe } from 'vitest'
import { postgresDialect } from '../../store/postgres/postgres-dialect.js'
import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'
import { internalRequest } from '../request-info.js'
import { caseRunner, pgEach, user, userRequest } from './test-fixtures.js'

const run = caseRunner(sqliteDialect, postgresDialect)

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
      postgres: [
        '($1 = $2 AND $3 = $4 AND CAST($5 AS DOUBLE PRECISION) > CAST($6 AS DOUBLE PRECISION))',
        [true, true, 'users', 'users', 30, 18],
      ],
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
      postgres: [
        `(CAST($1 AS DOUBLE PRECISION) > CAST($2 AS DOUBLE PRECISION) AND $3 = $4 AND CAST($5 AS DOUBLE PRECISION) = CAST($6 AS DOUBLE PRECISION) AND '' = '')`,
        [5, 3, true, true, 2, 2],
      ],
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
        '("p"."created" >= $1 AND "p"."created" <= $2 AND CAST($3 AS DOUBLE PRECISION) = CAST($4 AS DOUBLE PRECISION) AND CAST($5 AS DOUBLE PRECISION) = CAST($6 AS DOUBLE PRECISION))',
        ['2024-02-29 00:00:00.000Z', '2024-02-29 23:59:59.999Z', 2, 2, 4, 4],
      ],
    },
  ])
})
