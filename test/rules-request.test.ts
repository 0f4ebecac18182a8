/**
 * Rules over the request: `@request.body` in create and update rules (`:each`, `:length`,
 * `:isset`, `:changed`, modifiers, multipart numbers, joined relations), `@request.query`,
 * `@request.headers` and `@request.method` (test/helpers/rules.ts).
 */
import { afterAll, beforeAll, describe, expect } from 'vitest'
import {
  ALICE,
  ALL_POSTS,
  id,
  items,
  itRules,
  list,
  nf,
  one,
  P1,
  P3,
  POSTS,
  refused,
  rows,
  seedRules,
  send,
  server,
  setRules,
  type Scenario,
} from './helpers/rules.js'

seedRules()

describe('create rules over @request.body', () => {
  describe('`:each` and `:length`', () => {
    beforeAll(() =>
      setRules('posts', {
        createRule:
          "@request.auth.id != '' && @request.body.tags:each != 'c' && @request.body.tags:length < 3",
      }),
    )
    const tags = (list: string[], more: Partial<Scenario> = {}) =>
      send({ author: ALICE, tags: list }, more)
    const ab = { tags: ['a', 'b'] }
    itRules(
      rows(
        ['tags a,b', 'alice', 'POST', POSTS, 200, tags(['a', 'b'], { expectedFields: ab })],
        ['no tags', 'alice', 'POST', POSTS, 200, tags([])],
        ['tags c (an item fails :each)', 'alice', 'POST', POSTS, 400, tags(['c'], refused)],
        ['tags a,c', 'alice', 'POST', POSTS, 400, tags(['a', 'c'], refused)],
        ['tags a,b,d (too long)', 'alice', 'POST', POSTS, 400, tags(['a', 'b', 'd'], refused)],
        ['tags+ c', 'alice', 'POST', POSTS, 400, send({ author: ALICE, 'tags+': 'c' }, refused)],
        ['guest with tags a', 'guest', 'POST', POSTS, 400, tags(['a'], refused)],
      ),
    )
  })

  describe('numbers of a multipart body are compared as numbers', () => {
    beforeAll(() => setRules('posts', { createRule: '@request.body.score > 5' }))
    const form = (score: string, more: Partial<Scenario> = {}) => ({
      form: { title: 'scored', score },
      cleanup: true,
      ...more,
    })
    itRules(
      rows(
        [
          'json 10',
          'alice',
          'POST',
          POSTS,
          200,
          send({ score: 10 }, { expectedFields: { score: 10 } }),
        ],
        ['json 3', 'alice', 'POST', POSTS, 400, send({ score: 3 }, refused)],
        ['form 10', 'alice', 'POST', POSTS, 200, form('10', { expectedFields: { score: 10 } })],
        ['form 010', 'alice', 'POST', POSTS, 200, form('010', { expectedFields: { score: 10 } })],
        ['form 03', 'alice', 'POST', POSTS, 400, form('03', refused)],
        ['form 3', 'alice', 'POST', POSTS, 400, form('3', refused)],
      ),
    )
  })

  describe('submitted relation joined (`@request.body.team.members.id`)', () => {
    beforeAll(() =>
      setRules('posts', { createRule: '@request.body.team.members.id ?= @request.auth.id' }),
    )
    const team = (name: string, more: Partial<Scenario> = {}) =>
      send({ author: ALICE, team: id(name) }, more)
    itRules(
      rows(
        ['alice posts in red', 'alice', 'POST', POSTS, 200, team('red')],
        ['alice posts in blue', 'alice', 'POST', POSTS, 400, team('blue', refused)],
        ['bob posts in blue', 'bob', 'POST', POSTS, 200, team('blue')],
        ['carol posts in grey', 'carol', 'POST', POSTS, 400, team('grey', refused)],
        ['guest posts in red', 'guest', 'POST', POSTS, 400, team('red', refused)],
      ),
    )
  })
})

describe('@request.query, @request.headers and @request.method', () => {
  describe('query', () => {
    beforeAll(() =>
      setRules('posts', {
        listRule: "@request.query.key = 'open-sesame' && status = 'live'",
        viewRule: '@request.query.key:isset = true',
      }),
    )
    const P2 = one('posts', 'p2')
    const KEYED = list('posts', 'key=open-sesame')
    const beta = { title: 'Beta' }
    itRules(
      rows(
        ['guest with the key', 'guest', 'GET', KEYED, 200, items('p1', 'p4')],
        ['guest with a wrong key', 'guest', 'GET', list('posts', 'key=open'), 200, items()],
        ['guest without a key', 'guest', 'GET', POSTS, 200, items()],
        ['view, empty key (isset)', 'guest', 'GET', `${P2}?key=`, 200, { expectedFields: beta }],
        ['view without a key', 'guest', 'GET', P2, 404, nf],
      ),
    )
  })

  describe('headers (snake_cased names)', () => {
    beforeAll(() => setRules('posts', { listRule: "@request.headers.x_api_key = 'k-123'" }))
    const key = (value: string, names: string[]) => ({
      headers: { 'X-Api-Key': value },
      ...items(...names),
    })
    itRules(
      rows(
        ['X-Api-Key: k-123', 'guest', 'GET', POSTS, 200, key('k-123', ALL_POSTS)],
        ['X-Api-Key: k-124', 'alice', 'GET', POSTS, 200, key('k-124', [])],
        ['no header', 'guest', 'GET', POSTS, 200, items()],
      ),
    )
  })

  describe('method', () => {
    beforeAll(() =>
      setRules('posts', {
        listRule: "@request.method = 'POST'",
        viewRule: "@request.method = 'GET'",
        updateRule: "@request.method = 'PATCH'",
        deleteRule: "@request.method = 'PATCH'",
        createRule: "@request.method = 'POST' && @request.auth.id != ''",
      }),
    )
    itRules(
      rows(
        ['list (GET)', 'alice', 'GET', POSTS, 200, items()],
        ['view (GET)', 'guest', 'GET', P1, 200],
        ['update (PATCH)', 'bob', 'PATCH', P1, 200, { body: { title: 'Alpha' } }],
        ['delete (DELETE)', 'bob', 'DELETE', P1, 404, nf],
        ['create (POST) as alice', 'alice', 'POST', POSTS, 200, send({ title: 'posted' })],
        ['create (POST) as guest', 'guest', 'POST', POSTS, 400, send({ title: 'posted' }, refused)],
      ),
    )
  })
})

describe('update rules over @request.body: `:isset`, modifiers, `:changed`', () => {
  describe(':isset', () => {
    beforeAll(() =>
      setRules('posts', {
        viewRule: '',
        updateRule: 'author = @request.auth.id && @request.body.status:isset = false',
      }),
    )
    itRules(
      rows(
        ['alice edits the title of p3', 'alice', 'PATCH', P3, 200, { body: { title: 'Gamma' } }],
        ['alice submits a status', 'alice', 'PATCH', P3, 404, { body: { status: 'live' }, ...nf }],
        ['alice submits the same status', 'alice', 'PATCH', P3, 404, { body: { status: 'draft' } }],
        ['bob edits p3', 'bob', 'PATCH', P3, 404, { body: { title: 'x' }, ...nf }],
        ['p3 is still a draft', 'guest', 'GET', P3, 200, { expectedFields: { status: 'draft' } }],
      ),
    )
  })

  describe('@request.body after `field+` modifiers are resolved', () => {
    beforeAll(() =>
      setRules('posts', {
        updateRule: "author = @request.auth.id && @request.body.tags:each != 'c'",
      }),
    )
    const tagged = (...tags: string[]) => ({ expectedFields: { tags } })
    afterAll(async () => {
      const res = await server().api('PATCH', P3, { token: server().suToken, body: { tags: [] } })
      expect(res.status).toBe(200)
    })
    itRules(
      rows(
        ['alice appends a', 'alice', 'PATCH', P3, 200, { body: { 'tags+': 'a' }, ...tagged('a') }],
        [
          'alice prepends d',
          'alice',
          'PATCH',
          P3,
          200,
          { body: { '+tags': 'd' }, ...tagged('d', 'a') },
        ],
        ['alice sets c', 'alice', 'PATCH', P3, 404, { body: { tags: ['c'] }, ...nf }],
        ['alice appends c', 'alice', 'PATCH', P3, 404, { body: { 'tags+': 'c' }, ...nf }],
      ),
    )
  })

  describe(':changed', () => {
    beforeAll(() =>
      setRules('users', {
        updateRule: 'id = @request.auth.id && @request.body.role:changed = false',
      }),
    )
    const A = one('users', 'alice')
    const C = one('users', 'carol')
    const named = { name: 'Alice' }
    const member = { role: 'member', name: 'Alice' }
    const kept = { expectedFields: member }
    itRules(
      rows(
        ['alice renames herself', 'alice', 'PATCH', A, 200, { body: named, ...kept }],
        ['alice makes herself admin', 'alice', 'PATCH', A, 404, { body: { role: 'admin' }, ...nf }],
        ['alice submits her current role', 'alice', 'PATCH', A, 200, { body: { role: 'member' } }],
        ['bob renames alice', 'bob', 'PATCH', A, 404, { body: { name: 'X' }, ...nf }],
        ['su changes a role', 'su', 'PATCH', C, 200, { body: { role: 'admin' } }],
        ['alice is still a member', 'su', 'GET', A, 200, kept],
      ),
    )
  })
})
