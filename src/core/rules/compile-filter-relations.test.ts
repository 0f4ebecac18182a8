/**
 * compileFilter through relations, back-relations and @collection, and the listRules a client's
 * joins carry.
 */
import { describe } from 'vitest'
import { postgresDialect } from '../../store/postgres/postgres-dialect.js'
import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'
import { caseRunner, pgEach, schema, user, userRequest } from './test-fixtures.js'

const run = caseRunner(sqliteDialect, postgresDialect)

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

describe("compileFilter: a client's joins and the joined collections' listRules", () => {
  const listable = schema()
  listable.comments!.listRule = 'message != ""'
  listable.users!.listRule = 'name != ""'
  const findListable = (n: string) =>
    Object.values(listable).find((c) => c.id === n || c.name === n)
  const client = { ...user, restricted: true, findCollection: findListable }
  run([
    {
      // As PocketBase: a row whose joined record the client cannot list is dropped from the
      // scope (whatever the rest of the filter), a row joined to nothing stays.
      filter: 'author.name != "Ann" || title = "x"',
      ctx: client,
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author" ' +
          'WHERE (("_r1"."name" IS NOT ? OR "p"."title" = ?)) AND ' +
          `("_r1"."id" IS NULL OR (("_r1"."name" IS NOT '' AND "_r1"."name" IS NOT NULL))))`,
        ['Ann', 'x'],
      ],
      postgres: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN "users" AS "_r1" ON "_r1"."id" = "p"."author" ' +
          'WHERE (("_r1"."name" IS DISTINCT FROM $1 OR "p"."title" = $2)) AND ' +
          `("_r1"."id" IS NULL OR (("_r1"."name" IS DISTINCT FROM '' AND "_r1"."name" IS NOT NULL))))`,
        ['Ann', 'x'],
      ],
    },
    {
      filter: 'comments_via_post.message ?= "hi"',
      ctx: client,
      sqlite: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN "comments" AS "_b1" ON "_b1"."post" = "p"."id" ' +
          'WHERE ("_b1"."message" = ?) AND ' +
          `("_b1"."id" IS NULL OR (("_b1"."message" IS NOT '' AND "_b1"."message" IS NOT NULL))))`,
        ['hi'],
      ],
      postgres: [
        'EXISTS (SELECT 1 FROM (SELECT 1) AS "_s2" LEFT JOIN "comments" AS "_b1" ON "_b1"."post" = "p"."id" ' +
          'WHERE ("_b1"."message" = $1) AND ' +
          `("_b1"."id" IS NULL OR (("_b1"."message" IS DISTINCT FROM '' AND "_b1"."message" IS NOT NULL))))`,
        ['hi'],
      ],
    },
    {
      // The id of a single relation is the row's own column: no join, no listRule.
      filter: 'author.id = "u1"',
      ctx: client,
      sqlite: ['"p"."author" = ?', ['u1']],
      postgres: ['"p"."author" = $1', ['u1']],
    },
  ])
})
