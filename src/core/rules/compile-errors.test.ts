/** The 400s and 403s compileFilter and compileSort throw, each with its exact message. */
import { describe, expect, it } from 'vitest'
import { postgresDialect } from '../../store/postgres/postgres-dialect.js'
import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'
import type { Dialect } from '../../store/dialect.js'
import { ApiError } from '../errors.js'
import { compileFilter, compileSort, type RuleContext } from './index.js'
import { context, schema } from './test-fixtures.js'

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
      'comments_via_post:length = 0',
      {},
      400,
      'Invalid filter: the back-relation "comments_via_post" must be followed by a field ("comments_via_post.id").',
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
    const e = failure(() => compileFilter('strftime("%J", created) = 1', context(postgresDialect)))
    expect(e.message).toBe('Invalid filter: strftime code %J is not supported on PostgreSQL.')
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
      'author.posts_via_author',
      {},
      sqliteDialect,
      400,
      'Invalid sort: the back-relation "author.posts_via_author" must be followed by a field ("author.posts_via_author.id").',
    ],
    [
      '@rowid',
      { collection: { ...schema().posts!, type: 'view' } },
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
