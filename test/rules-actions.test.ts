/**
 * Rules on every action (view, list, create, update, delete): owner rules, null rules, a
 * relation path, and create rules that see the would-be record (test/helpers/rules.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import {
  ALICE,
  BOB,
  count,
  create,
  id,
  items,
  itRules,
  list,
  nf,
  one,
  P1,
  POSTS,
  refused,
  rows,
  seedRules,
  send,
  setRules,
  suOnly,
  type Who,
  type Row,
  type Scenario,
} from './helpers/rules.js'

seedRules()

describe('owner rules on every action', () => {
  beforeAll(async () => {
    await setRules('posts', {
      listRule: 'author = @request.auth.id',
      viewRule: 'author = @request.auth.id',
      updateRule: 'author = @request.auth.id',
      deleteRule: 'author = @request.auth.id',
      createRule: '@request.body.author = @request.auth.id',
    })
    await create('posts', { id: id('tmp1'), title: 'Disposable', author: ALICE })
  })
  const TMP = one('posts', 'tmp1')
  const hacked = { body: { title: 'Hacked' }, ...nf }
  itRules(
    rows(
      ['guest views p1', 'guest', 'GET', P1, 404, nf],
      ['bob views p1', 'bob', 'GET', P1, 404, nf],
      ['alice views p1', 'alice', 'GET', P1, 200, { expectedFields: { title: 'Alpha' } }],
      ['alice views a missing id', 'alice', 'GET', one('posts', 'nope'), 404, nf],
      ['su views p2', 'su', 'GET', one('posts', 'p2'), 200, { expectedFields: { title: 'Beta' } }],
      ['guest updates p1', 'guest', 'PATCH', P1, 404, hacked],
      ['bob updates p1', 'bob', 'PATCH', P1, 404, hacked],
      ['p1 is unchanged', 'su', 'GET', P1, 200, { expectedFields: { title: 'Alpha' } }],
      ['alice updates p1', 'alice', 'PATCH', P1, 200, send({ title: 'Alpha' }, { cleanup: false })],
      ['su updates p2', 'su', 'PATCH', one('posts', 'p2'), 200, { body: { title: 'Beta' } }],
      ['guest deletes tmp1', 'guest', 'DELETE', TMP, 404, nf],
      ['bob deletes tmp1', 'bob', 'DELETE', TMP, 404, nf],
      ['tmp1 still exists', 'su', 'GET', TMP, 200],
      ['alice deletes tmp1', 'alice', 'DELETE', TMP, 204],
      ['tmp1 is gone', 'su', 'GET', TMP, 404, nf],
      ['guest creates', 'guest', 'POST', POSTS, 400, send({ author: ALICE }, refused)],
      ['bob creates as alice', 'bob', 'POST', POSTS, 400, send({ author: ALICE }, refused)],
      ['alice creates without author', 'alice', 'POST', POSTS, 400, send({ title: 'x' }, refused)],
      ['alice creates as alice', 'alice', 'POST', POSTS, 200, send({ author: ALICE })],
      ['su creates as bob', 'su', 'POST', POSTS, 200, send({ author: BOB })],
      ['alice lists hers', 'alice', 'GET', POSTS, 200, items('p1', 'p3')],
    ),
  )
})

describe('null rules: superusers only', () => {
  const V1 = one('vault', 'v1')
  const VAULT = list('vault')
  const denied = (who: Who): Row[] => [
    [`${who} lists`, who, 'GET', VAULT, 403, suOnly],
    [`${who} views`, who, 'GET', V1, 403, suOnly],
    [`${who} creates`, who, 'POST', VAULT, 403, send({ note: 'x' }, suOnly)],
    [`${who} updates`, who, 'PATCH', V1, 403, send({ note: 'x' }, suOnly)],
    [`${who} deletes`, who, 'DELETE', V1, 403, suOnly],
  ]
  itRules(
    rows(
      ...denied('guest'),
      ...denied('alice'),
      ['su lists', 'su', 'GET', VAULT, 200, items('v1')],
      ['su views', 'su', 'GET', V1, 200, { expectedFields: { note: 'top secret' } }],
      ['su updates', 'su', 'PATCH', V1, 200, { body: { note: 'top secret' } }],
      ['su creates', 'su', 'POST', VAULT, 200, send({ note: 'new' })],
      ['v1 is intact', 'su', 'GET', VAULT, 200, items('v1')],
    ),
  )
})

describe('relation path through a single relation (`post.author`)', () => {
  beforeAll(async () => {
    await setRules('comments', {
      listRule: 'post.author = @request.auth.id',
      viewRule: 'post.author = @request.auth.id',
      updateRule: 'post.author = @request.auth.id',
      deleteRule: 'post.author = @request.auth.id',
      createRule: "@request.auth.id != '' && post.author = @request.auth.id",
    })
    await create('comments', { id: id('c3'), post: id('p1'), message: 'Disposable' })
  })
  const COMMENTS = list('comments')
  const C1 = one('comments', 'c1')
  const C3 = one('comments', 'c3')
  const on = (post: string) => send({ post: id(post), message: 'x' })
  itRules(
    rows(
      ['guest lists', 'guest', 'GET', COMMENTS, 200, items()],
      ['alice lists', 'alice', 'GET', COMMENTS, 200, items('c1', 'c3')],
      ['bob lists', 'bob', 'GET', COMMENTS, 200, items('c2')],
      ['carol lists', 'carol', 'GET', COMMENTS, 200, items()],
      ['alice views c1', 'alice', 'GET', C1, 200, { expectedFields: { message: 'Nice' } }],
      ['bob views c1', 'bob', 'GET', C1, 404, nf],
      ['alice views c2', 'alice', 'GET', one('comments', 'c2'), 404, nf],
      ['bob updates c1', 'bob', 'PATCH', C1, 404, { body: { message: 'x' }, ...nf }],
      ['alice updates c1', 'alice', 'PATCH', C1, 200, { body: { message: 'Nice' } }],
      ['bob deletes c3', 'bob', 'DELETE', C3, 404, nf],
      ['alice deletes c3', 'alice', 'DELETE', C3, 204],
      ["alice comments on bob's post", 'alice', 'POST', COMMENTS, 400, { ...on('p2'), ...refused }],
      ['guest comments', 'guest', 'POST', COMMENTS, 400, { ...on('p1'), ...refused }],
      ['bob comments on his post', 'bob', 'POST', COMMENTS, 200, on('p2')],
    ),
  )
})

describe('create rules see the would-be record', () => {
  let before = 0
  beforeAll(async () => {
    await setRules('posts', {
      createRule:
        "author = @request.auth.id && team.members.id ?= @request.auth.id && status = 'draft'",
    })
    before = await count('posts')
  })
  const post = (author: string, team: string, status?: string, more: Partial<Scenario> = {}) =>
    send({ author: id(author), team: id(team), ...(status ? { status } : {}) }, more)
  itRules(
    rows(
      ['alice in red, draft', 'alice', 'POST', POSTS, 200, post('alice', 'red', 'draft')],
      ['alice in blue', 'alice', 'POST', POSTS, 400, post('alice', 'blue', 'draft', refused)],
      ['alice in red, live', 'alice', 'POST', POSTS, 400, post('alice', 'red', 'live', refused)],
      ['alice in red, no status', 'alice', 'POST', POSTS, 400, post('alice', 'red', '', refused)],
      ['alice as bob', 'alice', 'POST', POSTS, 400, post('bob', 'red', 'draft', refused)],
      ['bob in blue', 'bob', 'POST', POSTS, 200, post('bob', 'blue', 'draft')],
      ['guest', 'guest', 'POST', POSTS, 400, post('alice', 'red', 'draft', refused)],
      ['su bypasses', 'su', 'POST', POSTS, 200, post('carol', 'grey', 'live')],
    ),
  )
  it('refused creates leave no row behind', async () => {
    expect(await count('posts')).toBe(before)
  })
})
