import { describe, expect, it } from 'vitest'
import { sqliteSchema } from '../../store/sqlite/schema.js'
import { blankCollection, makeField } from './defaults.js'
import { desiredIndexes, formatIndex, parseIndex } from './indexes.js'

const posts = blankCollection('base', 'posts')
posts.id = 'pbc_posts'
posts.fields.push(
  makeField({ name: 'title', type: 'text' }),
  makeField({ name: 'slug', type: 'text' }),
  makeField({ name: 'views', type: 'number' }),
  makeField({ name: 'meta', type: 'json' }),
)

interface Case {
  input: string
  /** The canonical text stored on the collection. */
  stored: string
  /** The DDL run on SQLite (the text `listIndexes` reads back). */
  sqlite: string
}

describe('parseIndex: what PocketBase schemas write', () => {
  it.each<Case>([
    {
      input: 'CREATE INDEX idx_title ON posts (title)',
      stored: 'CREATE INDEX `idx_title` ON `posts` (`title`)',
      sqlite: 'CREATE INDEX "idx_title" ON "posts" ("title")',
    },
    {
      // PocketBase writes its own indexes without spaces or quotes around columns.
      input: 'CREATE INDEX `idx_pair` ON `anything` (slug,title)',
      stored: 'CREATE INDEX `idx_pair` ON `posts` (`slug`, `title`)',
      sqlite: 'CREATE INDEX "idx_pair" ON "posts" ("slug", "title")',
    },
    {
      input: "CREATE UNIQUE INDEX `idx_slug` ON `posts` (`slug` COLLATE NOCASE) WHERE `slug` != ''",
      stored:
        "CREATE UNIQUE INDEX `idx_slug` ON `posts` (`slug` COLLATE NOCASE) WHERE `slug` != ''",
      sqlite: `CREATE UNIQUE INDEX "idx_slug" ON "posts" ("slug" COLLATE NOCASE) WHERE "slug" != ''`,
    },
    {
      input: 'create index if not exists "idx_lower" on posts (lower(title) desc);',
      stored: 'CREATE INDEX `idx_lower` ON `posts` (lower(`title`) DESC)',
      sqlite: 'CREATE INDEX "idx_lower" ON "posts" (lower("title") DESC)',
    },
    {
      input:
        "CREATE INDEX idx_mixed ON posts ((views + 1) * 2, json_extract(meta, '$.a')) WHERE slug <> '' AND (views > 0 OR title IS NOT NULL)",
      stored:
        "CREATE INDEX `idx_mixed` ON `posts` (((`views` + 1) * 2), json_extract(`meta`, '$.a')) WHERE `slug` != '' AND (`views` > 0 OR `title` IS NOT NULL)",
      sqlite: `CREATE INDEX "idx_mixed" ON "posts" ((("views" + 1) * 2), json_extract("meta", '$.a')) WHERE "slug" != '' AND ("views" > 0 OR "title" IS NOT NULL)`,
    },
    {
      input: "CREATE INDEX idx_in ON posts (slug) WHERE NOT slug IN ('a', 'it''s') AND views >= -5",
      stored:
        "CREATE INDEX `idx_in` ON `posts` (`slug`) WHERE NOT `slug` IN ('a', 'it''s') AND `views` >= -5",
      sqlite: `CREATE INDEX "idx_in" ON "posts" ("slug") WHERE NOT "slug" IN ('a', 'it''s') AND "views" >= -5`,
    },
  ])('$input', (c) => {
    const spec = parseIndex(c.input, posts)
    if (typeof spec === 'string') throw new Error(spec)
    expect(formatIndex(spec, 'posts')).toBe(c.stored)
    expect(sqliteSchema.indexDefinition('posts', spec)).toBe(c.sqlite)
    // The stored text reads back as the same index.
    expect(parseIndex(c.stored, posts)).toEqual(spec)
  })

  it.each([
    ['DROP TABLE users', /Expected CREATE/],
    ['CREATE INDEX idx ON posts (nope)', /Unknown index column "nope"/],
    ['CREATE INDEX idx ON posts (title) WHERE nope = 1', /Unknown index column "nope"/],
    ['CREATE INDEX idx ON posts (random())', /Unsupported function "random"/],
    ['CREATE INDEX idx ON posts (title); DROP TABLE posts', /Unexpected "DROP"/],
    ['CREATE INDEX idx ON posts (title COLLATE RTRIM)', /Unsupported collation/],
    ["CREATE INDEX idx ON posts (title) WHERE title = 'open", /unterminated/],
    ['CREATE INDEX "bad name" ON posts (title)', /Invalid index name/],
    ['CREATE INDEX idx ON posts (title) WHERE (SELECT 1)', /Unknown index column "SELECT"/],
  ])('refuses %s', (input, message) => {
    const result = parseIndex(input, posts)
    expect(typeof result).toBe('string')
    expect(result).toMatch(message)
  })
})

describe('desiredIndexes', () => {
  it('leaves out an implicit unique index that a user index already enforces', () => {
    const users = blankCollection('auth', 'users')
    users.id = 'u1'
    const names = () => desiredIndexes(users).map((i) => i.name)
    expect(names()).toEqual(['__u_u1_tokenKey', '__u_u1_email', '__sort_u1_created'])
    users.indexes = [
      'CREATE UNIQUE INDEX `idx_tokenKey_u1` ON `users` (`tokenKey`)',
      "CREATE UNIQUE INDEX `idx_email_u1` ON `users` (`email` COLLATE NOCASE) WHERE `email` != ''",
    ]
    expect(names()).toEqual(['__sort_u1_created', 'idx_tokenKey_u1', 'idx_email_u1'])
    // PocketBase's own (case-sensitive) email index enforces the implicit one, which compares
    // the email as written too.
    users.indexes = ["CREATE UNIQUE INDEX `idx_email_u1` ON `users` (`email`) WHERE `email` != ''"]
    expect(names()).toEqual(['__u_u1_tokenKey', '__sort_u1_created', 'idx_email_u1'])
  })

  it('gives a collection with `created` an index on it, unless a user index on it alone serves', () => {
    const posts = blankCollection('base', 'posts')
    posts.id = 'p1'
    const names = () => desiredIndexes(posts).map((i) => i.name)
    expect(names()).toEqual(['__sort_p1_created'])
    // Not served: a descending, a partial or a composite index on it.
    posts.indexes = [
      'CREATE INDEX `a` ON `posts` (`created` DESC)',
      "CREATE INDEX `b` ON `posts` (`created`) WHERE `created` != ''",
      'CREATE INDEX `c` ON `posts` (`created`, `id`)',
    ]
    expect(names()).toEqual(['__sort_p1_created', 'a', 'b', 'c'])
    posts.indexes = ['CREATE INDEX `mine` ON `posts` (`created`)']
    expect(names()).toEqual(['mine'])
    posts.indexes = []
    posts.fields = posts.fields.filter((f) => f.name !== 'created')
    expect(names()).toEqual([])
  })
})
