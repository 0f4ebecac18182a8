/** compileFilter over the filter functions: geoDistance and strftime. */
import { describe, expect, it } from 'vitest'
import { postgresDialect, STRFTIME_TIME } from '../../store/postgres/postgres-dialect.js'
import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'
import { caseRunner, compile } from './test-fixtures.js'

const run = caseRunner(sqliteDialect, postgresDialect)

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
        `COALESCE(to_char(CAST(substring(CAST("p"."created" AS TEXT) from $1) AS TIMESTAMPTZ) AT TIME ZONE 'UTC', $2), '') = $3`,
        [STRFTIME_TIME, 'YYYY"-"MM', '2024-02'],
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
