/** compileFilter over a record's own fields: literals, null semantics, JSON paths, modifiers. */
import { describe } from 'vitest'
import { postgresDialect } from '../../store/postgres/postgres-dialect.js'
import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'
import { caseRunner, pgEach } from './test-fixtures.js'

const run = caseRunner(sqliteDialect, postgresDialect)

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
        '("p"."published" = $1 AND ("p"."published" IS DISTINCT FROM $2 OR (SELECT CASE WHEN "lv" IS NULL OR "rv" IS NULL THEN NULL ELSE "lv" > (SELECT CASE WHEN "f" = trunc("f") AND abs("f") < 1e17 THEN CAST(CAST("f" AS BIGINT) AS TEXT) || \'.0\' ELSE regexp_replace(CAST("f" AS TEXT), \'^(-?[0-9]+)e\', \'\\1.0e\') END FROM (SELECT "rv" AS "f" OFFSET 0) AS "_f") END FROM (SELECT CAST("p"."id" AS TEXT) AS "lv", CAST($3 AS DOUBLE PRECISION) AS "rv" OFFSET 0) AS "_c")))',
        [true, false, 5],
      ],
    },
    {
      filter: 'data.a.b.0 = "x"',
      sqlite: ['json_extract("p"."data", ?) IS ?', ['$.a.b[0]', 'x']],
      postgres: [
        '(SELECT CASE WHEN COALESCE("ly", \'null\') = \'null\' OR "rv" IS NULL THEN COALESCE("ly", \'null\') = \'null\' AND "rv" IS NULL ELSE ROW((CASE "ly" WHEN \'number\' THEN 1 WHEN \'boolean\' THEN 1 WHEN \'string\' THEN 2 WHEN \'object\' THEN 2 WHEN \'array\' THEN 2 END), COALESCE((CASE "ly" WHEN \'number\' THEN CAST("lx" AS DOUBLE PRECISION) WHEN \'boolean\' THEN (CASE WHEN "lx" = \'true\' THEN 1.0 ELSE 0.0 END) END), 0), COALESCE((CASE WHEN "ly" IN (\'string\', \'object\', \'array\') THEN "lx" END), \'\')) = ROW((CASE WHEN "rv" IS NULL THEN NULL ELSE 2 END), COALESCE(0, 0), COALESCE("rv", \'\')) END FROM (SELECT json_typeof("p"."data" #> $1::text[]) AS "ly", ("p"."data" #>> $2::text[]) AS "lx", CAST($3 AS TEXT) AS "rv" OFFSET 0) AS "_c")',
        [['a', 'b', '0'], ['a', 'b', '0'], 'x'],
      ],
    },
    {
      filter: 'data.a.99999999999999999999 = 1',
      sqlite: ['json_extract("p"."data", ?) IS ?', ['$.a."99999999999999999999"', 1]],
      postgres: [
        '(SELECT CASE WHEN COALESCE("ly", \'null\') = \'null\' OR "rv" IS NULL THEN COALESCE("ly", \'null\') = \'null\' AND "rv" IS NULL ELSE ROW((CASE "ly" WHEN \'number\' THEN 1 WHEN \'boolean\' THEN 1 WHEN \'string\' THEN 2 WHEN \'object\' THEN 2 WHEN \'array\' THEN 2 END), COALESCE((CASE "ly" WHEN \'number\' THEN CAST("lx" AS DOUBLE PRECISION) WHEN \'boolean\' THEN (CASE WHEN "lx" = \'true\' THEN 1.0 ELSE 0.0 END) END), 0), COALESCE((CASE WHEN "ly" IN (\'string\', \'object\', \'array\') THEN "lx" END), \'\')) = ROW((CASE WHEN "rv" IS NULL THEN NULL ELSE 1 END), COALESCE("rv", 0), COALESCE(\'\', \'\')) END FROM (SELECT json_typeof("p"."data" #> $1::text[]) AS "ly", ("p"."data" #>> $2::text[]) AS "lx", CAST($3 AS DOUBLE PRECISION) AS "rv" OFFSET 0) AS "_c")',
        [['a', '99999999999999999999'], ['a', '99999999999999999999'], 1],
      ],
    },
    {
      // NB: the whole document is read as PocketBase reads it, `json_extract(data, '$')`.
      filter: 'data = null',
      sqlite: ['json_extract("p"."data", ?) IS NULL', ['$']],
      postgres: ['("p"."data" #>> $1::text[]) IS NOT DISTINCT FROM NULL', [[]]],
    },
    {
      filter: 'geo.lat > 10',
      sqlite: ['json_extract("p"."geo", ?) > ?', ['$.lat', 10]],
      postgres: [
        '(SELECT CASE WHEN COALESCE("ly", \'null\') = \'null\' OR "rv" IS NULL THEN NULL ELSE ROW((CASE "ly" WHEN \'number\' THEN 1 WHEN \'boolean\' THEN 1 WHEN \'string\' THEN 2 WHEN \'object\' THEN 2 WHEN \'array\' THEN 2 END), COALESCE((CASE "ly" WHEN \'number\' THEN CAST("lx" AS DOUBLE PRECISION) WHEN \'boolean\' THEN (CASE WHEN "lx" = \'true\' THEN 1.0 ELSE 0.0 END) END), 0), COALESCE((CASE WHEN "ly" IN (\'string\', \'object\', \'array\') THEN "lx" END), \'\')) > ROW((CASE WHEN "rv" IS NULL THEN NULL ELSE 1 END), COALESCE("rv", 0), COALESCE(\'\', \'\')) END FROM (SELECT json_typeof("p"."geo" #> $1::text[]) AS "ly", ("p"."geo" #>> $2::text[]) AS "lx", CAST($3 AS DOUBLE PRECISION) AS "rv" OFFSET 0) AS "_c")',
        [['lat'], ['lat'], 10],
      ],
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
      // NB: as in PocketBase, the filter's two backslashes read as one: `1\%` escapes its `%`.
      filter: 'title ~ "abc%" && title ~ "100\\%" && title ~ "1\\\\%"',
      sqlite: [
        `("p"."title" LIKE ? ESCAPE '\\' AND "p"."title" LIKE ? ESCAPE '\\' AND "p"."title" LIKE ? ESCAPE '\\')`,
        ['abc%', '%100\\%%', '%1\\%%'],
      ],
      postgres: [
        `(CAST("p"."title" AS TEXT) ILIKE $1 ESCAPE '\\' AND CAST("p"."title" AS TEXT) ILIKE $2 ESCAPE '\\' AND CAST("p"."title" AS TEXT) ILIKE $3 ESCAPE '\\')`,
        ['abc%', '%100\\%%', '%1\\%%'],
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
        '(CAST(json_array_length(CASE WHEN json_typeof("p"."tags") = \'array\' THEN "p"."tags" ELSE \'[]\'::json END) AS DOUBLE PRECISION) > $1 AND CAST((CASE WHEN COALESCE("p"."status", \'\') = \'\' THEN 0 ELSE 1 END) AS DOUBLE PRECISION) = $2)',
        [1, 0],
      ],
    },
    {
      filter: 'tags ~ "x"',
      sqlite: [`"p"."tags" LIKE ? ESCAPE '\\'`, ['%x%']],
      postgres: [`CAST(CAST("p"."tags" AS TEXT) AS TEXT) ILIKE $1 ESCAPE '\\'`, ['%x%']],
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
        '((SELECT CASE WHEN "lv" IS NULL OR "rv" IS NULL THEN NULL ELSE "lv" = (SELECT CASE WHEN "f" = trunc("f") AND abs("f") < 1e17 THEN CAST(CAST("f" AS BIGINT) AS TEXT) || \'.0\' ELSE regexp_replace(CAST("f" AS TEXT), \'^(-?[0-9]+)e\', \'\\1.0e\') END FROM (SELECT "rv" AS "f" OFFSET 0) AS "_f") END FROM (SELECT CAST("p"."id" AS TEXT) AS "lv", CAST($1 AS DOUBLE PRECISION) AS "rv" OFFSET 0) AS "_c") OR (SELECT CASE WHEN "lv" IS NULL OR "rv" IS NULL THEN NULL ELSE "lv" = (SELECT CASE WHEN "f" = trunc("f") AND abs("f") < 1e17 THEN CAST(CAST("f" AS BIGINT) AS TEXT) || \'.0\' ELSE regexp_replace(CAST("f" AS TEXT), \'^(-?[0-9]+)e\', \'\\1.0e\') END FROM (SELECT "rv" AS "f" OFFSET 0) AS "_f") END FROM (SELECT CAST("p"."id" AS TEXT) AS "lv", CAST($2 AS DOUBLE PRECISION) AS "rv" OFFSET 0) AS "_c") OR ("p"."id" = \'\' OR "p"."id" IS NULL))',
        [1, 0],
      ],
    },
  ])
})
