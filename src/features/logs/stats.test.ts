import { describe, expect, it } from 'vitest'
import { systemCollections } from '../../core/collections/system.js'
import { internalRequest } from '../../core/request-info.js'
import { compileFilter } from '../../core/rules/index.js'
import type { Dialect } from '../../store/dialect.js'
import { postgresDialect } from '../../store/postgres/postgres-dialect.js'
import { sql } from '../../store/sql.js'
import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'
import { LOGS_ALIAS, logsStatsQuery } from './stats.js'

const logs = systemCollections().find((c) => c.name === '_logs')!

/** The stats query with `filter` compiled for `dialect`, as `logsStats` builds it. */
function compiled(dialect: Dialect, filter: string) {
  const where =
    filter === ''
      ? sql`1 = 1`
      : compileFilter(filter, {
          dialect,
          collection: logs,
          alias: LOGS_ALIAS,
          findCollection: () => undefined,
          request: internalRequest(),
          restricted: false,
        })
  const q = dialect.compile(logsStatsQuery(logs, where))
  return [q.sql, q.params]
}

const hour = 'substr("__l"."created", 1, 13)'
const select = `SELECT COUNT(*) AS "total", ${hour} AS "hour" FROM "_logs" AS "__l"`
const group = `GROUP BY ${hour} ORDER BY ${hour}`

/** Each case states the expected SQL and parameters for both dialects side by side. */
const cases: { filter: string; sqlite: unknown[]; postgres: unknown[] }[] = [
  {
    filter: '',
    sqlite: [`${select} WHERE 1 = 1 ${group}`, []],
    postgres: [`${select} WHERE 1 = 1 ${group}`, []],
  },
  {
    filter: 'level >= 4',
    sqlite: [`${select} WHERE "__l"."level" >= ? ${group}`, [4]],
    postgres: [`${select} WHERE "__l"."level" >= $1 ${group}`, [4]],
  },
  {
    filter: 'data.status >= 400',
    sqlite: [`${select} WHERE json_extract("__l"."data", ?) >= ? ${group}`, ['$.status', 400]],
    // A JSON value next to a number compares as SQLite compares them (its JSON type first).
    postgres: [
      expect.stringMatching(
        /^SELECT COUNT\(\*\) AS "total", .* WHERE \(SELECT CASE .* FROM \(SELECT json_typeof\("__l"\."data" #> \$1::text\[\]\) AS "ly", \("__l"\."data" #>> \$2::text\[\]\) AS "lx", CAST\(\$3 AS DOUBLE PRECISION\) AS "rv" OFFSET 0\) AS "_c"\) GROUP BY /,
      ),
      [['status'], ['status'], 400],
    ],
  },
]

describe('logsStatsQuery', () => {
  it('keeps _logs in the auxiliary database', () => {
    expect(logs.database).toBe('auxiliary')
  })

  it.each(cases)('$filter', (c) => {
    expect(compiled(sqliteDialect, c.filter)).toEqual(c.sqlite)
    expect(compiled(postgresDialect, c.filter)).toEqual(c.postgres)
  })
})
