/**
 * Test fixtures: a small schema (users, orgs, posts, comments) and rule contexts over it, and the
 * compile cases the compile-*.test.ts files share (the expected SQL of each dialect side by side).
 */
import { expect, it } from 'vitest'
import type { Dialect } from '../../store/dialect.js'
import type { Collection, CollectionType, Field } from '../collections/model.js'
import { internalRequest, type RequestInfo } from '../request-info.js'
import type { RuleContext } from './context.js'
import { compileFilter } from './index.js'

/** A field with defaults for everything but name, type and options. */
export function field(
  name: string,
  type: string,
  options: Record<string, unknown> = {},
  extra: Partial<Field> = {},
): Field {
  return {
    id: `${type}_${name}`,
    name,
    type,
    required: false,
    unique: false,
    system: false,
    hidden: false,
    presentable: false,
    options,
    ...extra,
  }
}

function collection(
  name: string,
  type: CollectionType,
  fields: Field[],
  listRule: string | null = '',
): Collection {
  return {
    id: `id_${name}`,
    name,
    type,
    system: false,
    fields: [
      field('id', 'text'),
      ...fields,
      field('created', 'autodate'),
      field('updated', 'autodate'),
    ],
    indexes: [],
    listRule,
    viewRule: '',
    createRule: '',
    updateRule: '',
    deleteRule: '',
    created: '',
    updated: '',
  }
}

/** The fixture schema, keyed by name. */
export function schema(): Record<string, Collection> {
  const users = collection('users', 'auth', [
    field('email', 'email'),
    field('emailVisibility', 'bool'),
    field('verified', 'bool'),
    field('password', 'password', {}, { hidden: true }),
    field('tokenKey', 'text', {}, { hidden: true }),
    field('name', 'text'),
    field('age', 'number'),
    field('roles', 'select', { maxSelect: 5, values: ['a', 'b', 'c'] }),
    field('org', 'relation', { collectionId: 'id_orgs', maxSelect: 1 }),
    field('secret', 'text', {}, { hidden: true }),
  ])
  const orgs = collection('orgs', 'base', [field('name', 'text'), field('tier', 'number')], null)
  const posts = collection('posts', 'base', [
    field('title', 'text'),
    field('views', 'number'),
    field('published', 'bool'),
    field('data', 'json'),
    field('geo', 'geoPoint'),
    field('tags', 'select', { maxSelect: 3, values: ['x', 'y', 'z'] }),
    field('status', 'select', { maxSelect: 1, values: ['draft', 'live'] }),
    field('author', 'relation', { collectionId: 'id_users', maxSelect: 1 }),
    field('editors', 'relation', { collectionId: 'id_users', maxSelect: 10 }),
    field('secret', 'text', {}, { hidden: true }),
  ])
  const comments = collection('comments', 'base', [
    field('post', 'relation', { collectionId: 'id_posts', maxSelect: 1 }),
    field('message', 'text'),
    field('author', 'relation', { collectionId: 'id_users', maxSelect: 1 }),
  ])
  const meta = collection('meta', 'base', [
    field('post', 'relation', { collectionId: 'id_posts', maxSelect: 1 }, { unique: true }),
    field('note', 'text'),
  ])
  return { users, orgs, posts, comments, meta }
}

/** A rule context over `posts` (alias `p`) of the fixture schema. */
export function context(dialect: Dialect, over: Partial<RuleContext> = {}): RuleContext {
  const all = schema()
  const list = Object.values(all)
  return {
    dialect,
    collection: all.posts!,
    alias: 'p',
    findCollection: (n) => list.find((c) => c.id === n || c.name === n),
    request: null,
    restricted: false,
    now: new Date(Date.UTC(2024, 1, 29, 13, 14, 15, 16)),
    ...over,
  }
}

/** A request authenticated as a `users` record. */
export function userRequest(over: Partial<RequestInfo> = {}): RequestInfo {
  const users = schema().users!
  return internalRequest({
    auth: {
      collection: users,
      record: {
        id: 'u1',
        email: 'u1@x.io',
        emailVisibility: false,
        verified: true,
        name: 'Ann',
        age: 30,
        roles: ['a', 'b'],
        org: 'o1',
      },
    },
    method: 'POST',
    ...over,
  })
}

/** The SQL text and parameters a compile should produce. */
export type Expected = [sql: string, params: unknown[]]

/** A filter over `posts` and the SQL it compiles to on each dialect. */
export interface Case {
  filter: string
  ctx?: Partial<RuleContext>
  sqlite: Expected
  postgres: Expected
}

/** `json_array_elements_text` over `x`, guarded for non-arrays (PostgreSQL's json_each). */
export const pgEach = (x: string) =>
  `json_array_elements_text(CASE WHEN json_typeof(${x}) = 'array' THEN ${x} ELSE '[]'::json END)`

/** The context of a request authenticated as the `users` record u1. */
export const user = { request: userRequest() }

/** Compiles a case's filter for `dialect`. */
export function compile(dialect: Dialect, c: Pick<Case, 'filter' | 'ctx'>) {
  return dialect.compile(compileFilter(c.filter, context(dialect, c.ctx)))
}

/**
 * `run(cases)`: one test per case, named by its filter, comparing both dialects' output. The
 * dialects are passed in because only tests may import a store engine (eslint.config.js).
 */
export function caseRunner(sqliteDialect: Dialect, postgresDialect: Dialect) {
  return function run(cases: Case[]) {
    it.each(cases)('$filter', (c) => {
      const s = compile(sqliteDialect, c)
      const p = compile(postgresDialect, c)
      expect([s.sql, s.params]).toEqual(c.sqlite)
      expect([p.sql, p.params]).toEqual(c.postgres)
    })
  }
}
