/**
 * compileFilter's junction rewrite (`junction.ts`): an any-of comparison on a multi-valued field
 * of the main row with a known non-empty value reads the field's junction table when the
 * context reads the collection's table (`tableRows`) and a rule of the collection compares the
 * field with `?`; shared joins, values NULL could equal and derived rows keep `json_each`.
 */
import { describe, expect, it } from 'vitest'
import { postgresDialect } from '../../store/postgres/postgres-dialect.js'
import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'
import type { RuleContext } from './context.js'
import { hasJunction } from './junction.js'
import { caseRunner, pgEach, schema, user, userRequest } from './test-fixtures.js'

const run = caseRunner(sqliteDialect, postgresDialect)

/** `posts` whose listRule compares editors and tags with any-of operators. */
const posts = {
  ...schema().posts!,
  listRule: "editors.id ?= @request.auth.id || tags:each ?= 'q'",
}
const table: Partial<RuleContext> = { collection: posts, tableRows: true }
const TAGS = '"_mv_id_posts_select_tags"'
const EDITORS = '"_mv_id_posts_relation_editors"'

describe('hasJunction', () => {
  it('holds for multi-valued relations and selects compared with ? by a rule', () => {
    const f = (name: string) => posts.fields.find((x) => x.name === name)!
    expect(hasJunction(posts, f('editors'))).toBe(true)
    expect(hasJunction(posts, f('tags'))).toBe(true)
    expect(hasJunction(posts, f('author'))).toBe(false)
    expect(hasJunction(schema().posts!, f('tags'))).toBe(false)
    expect(hasJunction({ ...posts, type: 'view' }, f('tags'))).toBe(false)
    expect(hasJunction({ ...posts, listRule: "tags:each = 'q'" }, f('tags'))).toBe(false)
    // A bare multi-valued field compares as its JSON text: no items read.
    expect(hasJunction({ ...posts, listRule: "tags ?= 'q'" }, f('tags'))).toBe(false)
  })
})

describe('compileFilter: the junction rewrite', () => {
  run([
    {
      filter: 'tags:each ?= "x"',
      ctx: table,
      sqlite: [
        `"p"."id" IN (SELECT "_m1"."record" FROM ${TAGS} AS "_m1" WHERE "_m1"."value" = ?)`,
        ['x'],
      ],
      postgres: [
        `"p"."id" IN (SELECT "_m1"."record" FROM ${TAGS} AS "_m1" WHERE "_m1"."value" = $1)`,
        ['x'],
      ],
    },
    {
      filter: 'editors.id ?= @request.auth.id',
      ctx: { ...table, ...user },
      sqlite: [
        `"p"."id" IN (SELECT "_m1"."record" FROM ${EDITORS} AS "_m1" LEFT JOIN "users" AS "_r2" ON "_r2"."id" = "_m1"."value" WHERE "_r2"."id" = ?)`,
        ['u1'],
      ],
      postgres: [
        `"p"."id" IN (SELECT "_m1"."record" FROM ${EDITORS} AS "_m1" LEFT JOIN "users" AS "_r2" ON "_r2"."id" = "_m1"."value" WHERE "_r2"."id" = $1)`,
        ['u1'],
      ],
    },
    {
      // A restricted filter: the same, with the joined collection's listRule (empty here).
      filter: 'editors.name ?~ "an" || title = "t"',
      ctx: { ...table, request: userRequest(), restricted: true },
      sqlite: [
        `("p"."id" IN (SELECT "_m1"."record" FROM ${EDITORS} AS "_m1" LEFT JOIN "users" AS "_r2" ON "_r2"."id" = "_m1"."value" WHERE "_r2"."name" LIKE ? ESCAPE '\\') OR "p"."title" = ?)`,
        ['%an%', 't'],
      ],
      postgres: [
        `("p"."id" IN (SELECT "_m1"."record" FROM ${EDITORS} AS "_m1" LEFT JOIN "users" AS "_r2" ON "_r2"."id" = "_m1"."value" WHERE CAST("_r2"."name" AS TEXT) ILIKE $1 ESCAPE '\\') OR "p"."title" = $2)`,
        ['%an%', 't'],
      ],
    },
    {
      // One join, two comparisons: an item equal to both, as without the rewrite.
      filter: 'tags:each ?= "x" && tags:each ?= "y"',
      ctx: table,
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN json_each("p"."tags") AS "_j1" ON 1 = 1 WHERE ("_j1"."value" = ? AND "_j1"."value" = ?))',
        ['x', 'y'],
      ],
      postgres: [
        `EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN ${pgEach('"p"."tags"')} AS "_j1"("value") ON 1 = 1 WHERE ("_j1"."value" = $1 AND "_j1"."value" = $2))`,
        ['x', 'y'],
      ],
    },
    {
      // NULL items equal '': the empty list's NULL row must be seen.
      filter: 'tags:each ?= ""',
      ctx: table,
      sqlite: [
        `EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN json_each("p"."tags") AS "_j1" ON 1 = 1 WHERE ("_j1"."value" = '' OR "_j1"."value" IS NULL))`,
        [],
      ],
      postgres: [
        `EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN ${pgEach('"p"."tags"')} AS "_j1"("value") ON 1 = 1 WHERE ("_j1"."value" = '' OR "_j1"."value" IS NULL))`,
        [],
      ],
    },
    {
      // A derived row of values (rule checks of records not in the table): no junction.
      filter: 'tags:each ?= "x"',
      ctx: { collection: posts },
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN json_each("p"."tags") AS "_j1" ON 1 = 1 WHERE "_j1"."value" = ?)',
        ['x'],
      ],
      postgres: [
        `EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN ${pgEach('"p"."tags"')} AS "_j1"("value") ON 1 = 1 WHERE "_j1"."value" = $1)`,
        ['x'],
      ],
    },
  ])
})
