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
    // The JSON values read as SQLite's CAST(… AS NUMERIC) reads them, ASIN/SQRT NULL off domain.
    expect(p.sql).toContain(
      `(SELECT CASE WHEN "y" IS NULL THEN NULL ELSE (CASE "y" WHEN 'number' THEN CAST("x" AS DOUBLE PRECISION)`,
    )
    expect(p.sql).toContain(`FROM (SELECT json_typeof("p"."geo" #> $3::text[]) AS "y"`)
    expect(p.sql).toContain(`(SELECT CASE WHEN "v" BETWEEN -1 AND 1 THEN ASIN("v") END FROM`)
    expect(p.params.filter((v) => typeof v === 'number')).toEqual([42.69, 42.69, 23.32, 25])
  })

  run([
    {
      filter: 'strftime("%Y-%m", created) = "2024-02"',
      sqlite: [`COALESCE(strftime(?, "p"."created"), '') = ?`, ['%Y-%m', '2024-02']],
      postgres: [
        `COALESCE((SELECT CASE WHEN "t" IS NULL THEN NULL ELSE to_char("t", $1) || CAST($2 AS TEXT) || to_char("t", $3) END FROM (SELECT CAST(substring(CAST("p"."created" AS TEXT) from $4) AS TIMESTAMPTZ) AT TIME ZONE 'UTC' AS "t" OFFSET 0) AS "_t"), '') = $5`,
        ['YYYY', '-', 'MM', STRFTIME_TIME, '2024-02'],
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
