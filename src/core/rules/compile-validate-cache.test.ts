/** validateRule (what a collection's rules may say) and the cache of compiled filters. */
import { describe, expect, it } from 'vitest'
import { postgresDialect } from '../../store/postgres/postgres-dialect.js'
import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'
import type { Dialect } from '../../store/dialect.js'
import { internalRequest } from '../request-info.js'
import { compileFilter, validateRule } from './index.js'
import { context, schema, user, userRequest } from './test-fixtures.js'

describe('validateRule', () => {
  const { posts, users } = schema()
  const all = Object.values(schema())
  const find = (n: string) => all.find((c) => c.id === n || c.name === n)
  const cases: [string, string | null][] = [
    ['', null],
    ['@request.auth.id != "" && author = @request.auth.id', null],
    ['@request.auth.org.name = "x" && @request.body.author.name = "y"', null],
    ['secret = "hidden fields are fine in rules"', null],
    ['comments_via_post.post.comments_via_post.post.comments_via_post.post.title = "6 hops"', null],
    ['foo = 1', 'unknown field "foo"'],
    ['title = ', 'expected an operand at position 8, found end of filter'],
    ['@request.body.author.nope = 1', 'unknown field "@request.body.author.nope"'],
    ['@collection.users.org.nope = 1', 'unknown field "@collection.users.org.nope"'],
  ]
  const dialects: [string, Dialect][] = [
    ['sqlite', sqliteDialect],
    ['postgres', postgresDialect],
  ]
  describe.each(dialects)('%s', (_name, dialect) => {
    it.each(cases)('%j', (rule, expected) => {
      expect(validateRule(rule, posts!, find, dialect)).toBe(expected)
    })
    it('validates against the given collection', () => {
      expect(validateRule('email = "x" && verified = true', users!, find, dialect)).toBeNull()
      expect(validateRule('email = "x"', posts!, find, dialect)).toBe('unknown field "email"')
    })
  })
  it('compiles with the dialect it is given, never a default one', () => {
    // `%J` has no equivalent on PostgreSQL: only a rule compiled for it can fail on it.
    const rule = 'strftime("%J", created) = "1"'
    expect(validateRule(rule, posts!, find, sqliteDialect)).toBeNull()
    expect(validateRule(rule, posts!, find, postgresDialect)).toBe(
      'strftime code %J is not supported on PostgreSQL',
    )
    // A default parameter would not count in `length`.
    expect(validateRule.length).toBe(4)
    // @ts-expect-error the dialect is required: nothing in core/rules defaults to SQLite.
    expect(() => validateRule('title != "a"', posts!, find)).toThrow(TypeError)
  })
})

describe('compiled filter cache', () => {
  it('reuses the SQL of request-independent filters and recompiles when the schema changes', () => {
    const ctx = context(sqliteDialect, { now: undefined })
    const a = compileFilter('title = "cached" && views > 3', ctx)
    expect(compileFilter('title = "cached" && views > 3', ctx)).toBe(a)
    const changed = {
      ...ctx,
      collection: { ...ctx.collection, updated: `${ctx.collection.updated}x` },
    }
    expect(compileFilter('title = "cached" && views > 3', changed)).not.toBe(a)
    const body = { request: userRequest({ body: { title: 'a' } }) }
    const fromBody = compileFilter('title = @request.body.title', { ...ctx, ...body })
    expect(compileFilter('title = @request.body.title', { ...ctx, ...body })).not.toBe(fromBody)
  })

  it('reuses rules reading only @request.auth fields per auth record', () => {
    const ctx = context(sqliteDialect, { now: undefined })
    const rule = 'title = @request.auth.id && views > @request.auth.age'
    const owner = compileFilter(rule, { ...ctx, ...user })
    expect(compileFilter(rule, { ...ctx, ...user })).toBe(owner)
    expect(sqliteDialect.compile(owner).params).toEqual(['u1', 30])
    // Another auth record (another verified token) gets its own SQL with its own values.
    const other = userRequest()
    other.auth!.record = { ...other.auth!.record, id: 'u2', age: 40 }
    const second = compileFilter(rule, { ...ctx, request: other })
    expect(second).not.toBe(owner)
    expect(sqliteDialect.compile(second).params).toEqual(['u2', 40])
    // Guests share theirs.
    const guest = internalRequest()
    const g = compileFilter(rule, { ...ctx, request: guest })
    expect(compileFilter(rule, { ...ctx, request: internalRequest() })).toBe(g)
    // A path through a relation of the auth record is compiled per request.
    const viaOrg = compileFilter('title = @request.auth.org.name', { ...ctx, ...user })
    expect(compileFilter('title = @request.auth.org.name', { ...ctx, ...user })).not.toBe(viaOrg)
  })
})
