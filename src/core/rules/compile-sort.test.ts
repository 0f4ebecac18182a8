/** compileSort: own fields, macros, relations, back-relation counts and hidden e-mails. */
import { describe, expect, it } from 'vitest'
import { postgresDialect } from '../../store/postgres/postgres-dialect.js'
import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'
import { join } from '../../store/sql.js'
import { compileSort, type RuleContext } from './index.js'
import { context, pgEach, schema, type Expected } from './test-fixtures.js'

describe('compileSort', () => {
  const cases: [string, Partial<RuleContext>, Expected, Expected][] = [
    [
      '-created,+title',
      {},
      ['"p"."created" DESC, "p"."title" ASC', []],
      ['"p"."created" DESC NULLS LAST, "p"."title" ASC NULLS FIRST', []],
    ],
    [
      '@random,-@rowid',
      {},
      ['RANDOM() ASC, "p"."_rowid_" DESC', []],
      ['RANDOM() ASC NULLS FIRST, "p"."_rowid_" DESC NULLS LAST', []],
    ],
    [
      'author.name,-editors.name,title:lower',
      {},
      [
        '(SELECT "_r1"."name" FROM (SELECT 1) AS "_s2" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author") ASC, ' +
          '(SELECT MAX("_r4"."name") FROM (SELECT 1) AS "_s5" LEFT JOIN json_each("p"."editors") AS "_j3" ON 1 = 1 ' +
          'LEFT JOIN "users" AS "_r4" ON "_r4"."id" = "_j3"."value") DESC, LOWER("p"."title") ASC',
        [],
      ],
      [
        '(SELECT "_r1"."name" FROM (SELECT 1) AS "_s2" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author") ASC NULLS FIRST, ' +
          `(SELECT MAX("_r4"."name") FROM (SELECT 1) AS "_s5" LEFT JOIN ${pgEach('"p"."editors"')} AS "_j3"("value") ON 1 = 1 ` +
          'LEFT JOIN "users" AS "_r4" ON "_r4"."id" = "_j3"."value") DESC NULLS LAST, LOWER("p"."title") ASC NULLS FIRST',
        [],
      ],
    ],
    // A superuser sorts by the real e-mail…
    [
      '-email',
      { collection: schema().users!, alias: 'u' },
      ['"u"."email" DESC', []],
      ['"u"."email" DESC NULLS LAST', []],
    ],
    // …a client by what its filter sees: a hidden e-mail matches nothing, so it sorts as NULL.
    [
      '-email',
      { collection: schema().users!, alias: 'u', restricted: true },
      ['CASE WHEN "u"."emailVisibility" = TRUE THEN "u"."email" END DESC', []],
      ['CASE WHEN "u"."emailVisibility" = TRUE THEN "u"."email" END DESC NULLS LAST', []],
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
          'LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author") ASC NULLS FIRST, ' +
          '(SELECT MAX(CASE WHEN "_r4"."emailVisibility" = TRUE THEN LOWER("_r4"."email") END) FROM (SELECT 1) AS "_s5" ' +
          `LEFT JOIN ${pgEach('"p"."editors"')} AS "_j3"("value") ON 1 = 1 LEFT JOIN "users" AS "_r4" ON "_r4"."id" = "_j3"."value") DESC NULLS LAST`,
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
