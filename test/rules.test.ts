/**
 * Collection rules through the HTTP API, in PocketBase's ApiScenario style: each table row is a
 * request (method, url, caller, body, headers) with the exact status, message and records it
 * must produce. Callers are a guest, three users (alice, bob, carol) and a superuser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

type Who = 'guest' | 'alice' | 'bob' | 'carol' | 'su'
type Rules = Partial<
  Record<'listRule' | 'viewRule' | 'createRule' | 'updateRule' | 'deleteRule', string | null>
>

/** One API scenario: a request and everything its response must show. */
interface Scenario {
  name: string
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  url: string
  as: Who
  body?: Record<string, unknown>
  /** A multipart body instead of JSON. */
  form?: Record<string, string>
  headers?: Record<string, string>
  expectedStatus: number
  /** The message of an error response. */
  expectedMessage?: string
  /** Short names of the records a list must return: exactly these, `totalItems` included. */
  expectedItems?: string[]
  /** Compare `expectedItems` in order (default: as a set). */
  ordered?: boolean
  /** A subset the response body must match. */
  expectedContent?: Record<string, unknown>
  /** Delete the created record afterwards (superuser), so later tables see the seed only. */
  cleanup?: boolean
}

const ONLY_SU = 'Only superusers can perform this action.'
const NOT_FOUND = "The requested resource wasn't found."
const CREATE_FAILED = 'Failed to create record.'
const BY_REQUEST = 'Only superusers can filter by @request.'
const BY_COLLECTION = 'Only superusers can filter by @collection.'
const AUTH_RULE = "The request doesn't satisfy the collection requirements to authenticate."
const PASSWORD = 'password123'

/** A deterministic 15-character record id for a short name (`p1` → `p10000000000000`). */
const id = (name: string): string => name.padEnd(15, '0')
/** The short name of an id made by `id()` (unknown ids stay recognisable, minus trailing 0s). */
const short = (value: string): string => value.replace(/0+$/, '')

const list = (collection: string, query = ''): string =>
  `/api/collections/${collection}/records${query === '' ? '' : `?${query}`}`
const one = (collection: string, name: string): string =>
  `/api/collections/${collection}/records/${id(name)}`
const q = (params: Record<string, string>): string => new URLSearchParams(params).toString()

const ALL_POSTS = ['p1', 'p2', 'p3', 'p4']

/** A table row: name, caller, method, url, expected status, then body, headers, expectations. */
type Row = [string, Who, Scenario['method'], string, number, Partial<Scenario>?]
const rows = (...table: Row[]): Scenario[] =>
  table.map(([name, as, method, url, expectedStatus, more]) => ({
    name,
    as,
    method,
    url,
    expectedStatus,
    ...more,
  }))
/** A GET row named after its caller and url: caller, url, expected status, expectations. */
type GetRow = [Who, string, number, Partial<Scenario>?]
const gets = (...table: GetRow[]): Scenario[] =>
  rows(
    ...table.map(([as, url, status, more]): Row => [
      `${as} GET ${decodeURIComponent(url.replace(/^\/api\/collections\//, ''))}`,
      as,
      'GET',
      url,
      status,
      more,
    ]),
  )
const nf = { expectedMessage: NOT_FOUND }
const refused = { expectedMessage: CREATE_FAILED }
const suOnly = { expectedMessage: ONLY_SU }
const items = (...names: string[]): Partial<Scenario> => ({ expectedItems: names })
const inOrder = (...names: string[]): Partial<Scenario> => ({ expectedItems: names, ordered: true })
/** A request body; a 200 create is deleted again (`cleanup`) so later tables see the seed. */
const send = (body: Record<string, unknown>, more: Partial<Scenario> = {}): Partial<Scenario> => ({
  body,
  cleanup: true,
  ...more,
})
const POSTS = list('posts')
const P1 = one('posts', 'p1')
const P3 = one('posts', 'p3')
const ALICE = id('alice')
const BOB = id('bob')

let t: TestServer
const tokens: Record<Who, string | null> = {
  guest: null,
  alice: null,
  bob: null,
  carol: null,
  su: null,
}

async function setRules(collection: string, rules: Rules): Promise<void> {
  const res = await t.api('PATCH', `/api/collections/${collection}`, {
    token: t.suToken,
    body: rules,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
}

async function create(collection: string, body: Record<string, unknown>): Promise<void> {
  const res = await t.api('POST', list(collection), { token: t.suToken, body })
  expect(res.status, `${collection} ${JSON.stringify(res.body)}`).toBe(200)
}

async function createCollection(body: Record<string, unknown>): Promise<string> {
  const res = await t.api('POST', '/api/collections', { token: t.suToken, body })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.id as string
}

async function signIn(collection: string, email: string) {
  return t.api('POST', `/api/collections/${collection}/auth-with-password`, {
    body: { identity: email, password: PASSWORD },
  })
}

async function run(s: Scenario): Promise<void> {
  let raw: FormData | undefined
  if (s.form) {
    raw = new FormData()
    for (const [k, v] of Object.entries(s.form)) raw.append(k, v)
  }
  const res = await t.api(s.method, s.url, {
    token: tokens[s.as],
    body: s.body,
    raw,
    headers: s.headers,
  })
  const shown = JSON.stringify(res.body)
  expect(res.status, shown).toBe(s.expectedStatus)
  if (s.expectedStatus >= 400) {
    expect(Object.keys(res.body).sort(), shown).toEqual(['code', 'data', 'message'])
    expect(res.body.code).toBe(s.expectedStatus)
  }
  if (s.expectedStatus === 204) expect(res.body).toBeNull()
  if (s.expectedMessage !== undefined) expect(res.body.message).toBe(s.expectedMessage)
  if (s.expectedItems) {
    const got = (res.body.items as { id: string }[]).map((r) => short(r.id))
    if (s.ordered) expect(got).toEqual(s.expectedItems)
    else expect([...got].sort()).toEqual([...s.expectedItems].sort())
    expect(res.body.totalItems).toBe(s.expectedItems.length)
  }
  if (s.expectedContent) expect(res.body).toMatchObject(s.expectedContent)
  if (s.cleanup && res.status === 200) {
    const url = `${s.url.split('?')[0]!}/${res.body.id as string}`
    const del = await t.api('DELETE', url, { token: t.suToken })
    expect(del.status).toBe(204)
  }
}

/** Superuser count of a collection, to prove that refused creates left nothing behind. */
async function count(collection: string): Promise<number> {
  const res = await t.api('GET', list(collection, 'perPage=500'), { token: t.suToken })
  expect(res.status).toBe(200)
  return res.body.totalItems as number
}

beforeAll(async () => {
  t = await startServer()
  tokens.su = t.suToken
  const orgs = await createCollection({
    name: 'orgs',
    type: 'base',
    listRule: '',
    viewRule: '',
    schema: [
      { name: 'name', type: 'text' },
      { name: 'plan', type: 'select', options: { values: ['free', 'pro'], maxSelect: 1 } },
    ],
  })
  const users = await t.api('GET', '/api/collections/users', { token: t.suToken })
  const patched = await t.api('PATCH', '/api/collections/users', {
    token: t.suToken,
    body: {
      schema: [
        ...users.body.schema,
        { name: 'org', type: 'relation', options: { collectionId: orgs, maxSelect: 1 } },
        { name: 'role', type: 'select', options: { values: ['member', 'admin'], maxSelect: 1 } },
      ],
    },
  })
  expect(patched.status, JSON.stringify(patched.body)).toBe(200)
  const teams = await createCollection({
    name: 'teams',
    type: 'base',
    schema: [
      { name: 'name', type: 'text' },
      {
        name: 'members',
        type: 'relation',
        options: { collectionId: users.body.id, maxSelect: 10 },
      },
    ],
  })
  await createCollection({
    name: 'members',
    type: 'base',
    listRule: '',
    viewRule: '',
    schema: [
      { name: 'team', type: 'relation', options: { collectionId: teams, maxSelect: 1 } },
      { name: 'user', type: 'relation', options: { collectionId: users.body.id, maxSelect: 1 } },
    ],
  })
  const posts = await createCollection({
    name: 'posts',
    type: 'base',
    schema: [
      { name: 'title', type: 'text' },
      { name: 'author', type: 'relation', options: { collectionId: users.body.id, maxSelect: 1 } },
      { name: 'team', type: 'relation', options: { collectionId: teams, maxSelect: 1 } },
      { name: 'tags', type: 'select', options: { values: ['a', 'b', 'c', 'd'], maxSelect: 4 } },
      { name: 'status', type: 'select', options: { values: ['draft', 'live'], maxSelect: 1 } },
      { name: 'publishAt', type: 'date' },
      { name: 'score', type: 'number' },
      { name: 'secret', type: 'text', hidden: true },
    ],
  })
  await createCollection({
    name: 'comments',
    type: 'base',
    schema: [
      { name: 'post', type: 'relation', options: { collectionId: posts, maxSelect: 1 } },
      { name: 'message', type: 'text' },
    ],
  })
  await createCollection({
    name: 'vault',
    type: 'base',
    listRule: null,
    viewRule: null,
    createRule: null,
    updateRule: null,
    deleteRule: null,
    schema: [{ name: 'note', type: 'text' }],
  })

  await create('orgs', { id: id('acme'), name: 'Acme', plan: 'pro' })
  await create('orgs', { id: id('beta'), name: 'Beta', plan: 'free' })
  const person = (name: string, extra: Record<string, unknown>) =>
    create('users', {
      id: id(name),
      email: `${name}@example.com`,
      password: PASSWORD,
      passwordConfirm: PASSWORD,
      name: name[0]!.toUpperCase() + name.slice(1),
      ...extra,
    })
  await person('alice', { org: id('acme'), role: 'member', emailVisibility: true, verified: true })
  await person('bob', { org: id('beta'), role: 'member', emailVisibility: false })
  await person('carol', { role: 'admin', emailVisibility: true })
  await create('teams', { id: id('red'), name: 'Red', members: [id('alice'), id('bob')] })
  await create('teams', { id: id('blue'), name: 'Blue', members: [id('bob')] })
  await create('teams', { id: id('grey'), name: 'Grey', members: [] })
  await create('members', { id: id('m1'), team: id('red'), user: id('alice') })
  await create('members', { id: id('m2'), team: id('red'), user: id('bob') })
  await create('members', { id: id('m3'), team: id('blue'), user: id('bob') })
  await create('posts', {
    id: id('p1'),
    title: 'Alpha',
    author: id('alice'),
    team: id('red'),
    tags: ['a', 'b'],
    status: 'live',
    publishAt: '2001-01-01 00:00:00.000Z',
    secret: 'alpha-secret',
  })
  await create('posts', {
    id: id('p2'),
    title: 'Beta',
    author: id('bob'),
    team: id('blue'),
    tags: ['b'],
    status: 'draft',
    publishAt: '2999-01-01 00:00:00.000Z',
    secret: 'beta-secret',
  })
  await create('posts', {
    id: id('p3'),
    title: 'Gamma',
    author: id('alice'),
    tags: [],
    status: 'draft',
  })
  await create('posts', {
    id: id('p4'),
    title: 'Delta',
    author: id('carol'),
    team: id('grey'),
    tags: ['a', 'b', 'c'],
    status: 'live',
    publishAt: '2002-01-01 00:00:00.000Z',
  })
  await create('comments', { id: id('c1'), post: id('p1'), message: 'Nice' })
  await create('comments', { id: id('c2'), post: id('p2'), message: 'Hmm' })
  await create('vault', { id: id('v1'), note: 'top secret' })

  for (const who of ['alice', 'bob', 'carol'] as const) {
    const res = await signIn('users', `${who}@example.com`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    tokens[who] = res.body.token as string
  }
})
afterAll(() => t.close())

/** A listRule and the exact records each caller lists under it (of posts by default). */
interface ListCase {
  rule: string
  collection?: string
  expect: Partial<Record<Who, string[]>>
}

const listRules: ListCase[] = [
  {
    rule: 'author = @request.auth.id',
    expect: { guest: [], alice: ['p1', 'p3'], bob: ['p2'], carol: ['p4'], su: ALL_POSTS },
  },
  // any-of over a multi relation reached through a single relation; a guest's
  // @request.auth.id is NULL, which `?=` matches against an empty set (no team, no members)
  {
    rule: 'team.members.id ?= @request.auth.id',
    expect: { guest: ['p3', 'p4'], alice: ['p1'], bob: ['p1', 'p2'], carol: [], su: ALL_POSTS },
  },
  {
    rule: "@request.auth.id != '' && team.members.id ?= @request.auth.id",
    expect: { guest: [], alice: ['p1'], bob: ['p1', 'p2'], carol: [] },
  },
  {
    rule: "@request.auth.id != '' && team.members:each ?= @request.auth.id",
    expect: { guest: [], alice: ['p1'], bob: ['p1', 'p2'], carol: [] },
  },
  // plain `=` on a multi-valued path: every member must match
  {
    rule: 'team.members.id = @request.auth.id',
    expect: { guest: ['p3', 'p4'], alice: [], bob: ['p2'], carol: [] },
  },
  {
    rule: 'team.members.id != @request.auth.id',
    expect: {
      guest: ['p1', 'p2'],
      alice: ['p2', 'p3', 'p4'],
      bob: ['p3', 'p4'],
      carol: ALL_POSTS,
    },
  },
  {
    rule: 'team.members.id ?!= @request.auth.id',
    expect: { alice: ALL_POSTS, bob: ['p1', 'p3', 'p4'] },
  },
  // a back-relation after a relation
  {
    rule: 'team.members_via_team.user ?= @request.auth.id',
    expect: { guest: ['p3', 'p4'], alice: ['p1'], bob: ['p1', 'p2'], carol: [] },
  },
  { rule: "author.org.plan = 'pro'", expect: { guest: ['p1', 'p3'], bob: ['p1', 'p3'] } },
  // the auth record's own relation
  {
    rule: "@request.auth.org.plan = 'pro'",
    expect: { guest: [], alice: ALL_POSTS, bob: [], carol: [], su: ALL_POSTS },
  },
  {
    rule: "@request.auth.role = 'admin' || author = @request.auth.id",
    expect: { guest: [], alice: ['p1', 'p3'], bob: ['p2'], carol: ALL_POSTS },
  },
  {
    rule: "@request.auth.collectionName = 'users' && status = 'live'",
    expect: { guest: [], alice: ['p1', 'p4'], carol: ['p1', 'p4'] },
  },
  // one @collection join: both conditions hold on the same membership row
  {
    rule: '@collection.members.user ?= @request.auth.id && @collection.members.team ?= team',
    expect: { guest: [], alice: ['p1'], bob: ['p1', 'p2'], carol: [] },
  },
  {
    rule: '@collection.members:m.user ?= @request.auth.id && @collection.members:m.team ?= team',
    expect: { guest: [], alice: ['p1'], bob: ['p1', 'p2'], carol: [] },
  },
  // two aliases: two independent joins of the same collection
  {
    rule: '@collection.members:mine.user ?= @request.auth.id && @collection.members:any.team ?= team',
    expect: { guest: [], alice: ['p1', 'p2'], bob: ['p1', 'p2'], carol: [] },
  },
  { rule: "tags:each ?= 'c'", expect: { guest: ['p4'], alice: ['p4'] } },
  { rule: "tags:each = 'b'", expect: { guest: ['p2'] } },
  { rule: "tags:each != 'c'", expect: { guest: ['p1', 'p2', 'p3'] } },
  { rule: 'tags:length > 1', expect: { guest: ['p1', 'p4'] } },
  { rule: 'tags:length = 0', expect: { bob: ['p3'] } },
  { rule: 'team.members:length = 2', expect: { guest: ['p1'] } },
  { rule: "publishAt != '' && publishAt <= @now", expect: { guest: ['p1', 'p4'] } },
  { rule: 'publishAt > @tomorrow && publishAt > @yearEnd', expect: { alice: ['p2'] } },
  { rule: '@todayStart < @todayEnd && @month >= 1 && @month <= 12', expect: { guest: ALL_POSTS } },
  { rule: "@request.method = 'POST'", expect: { guest: [], alice: [], su: ALL_POSTS } },
  { rule: "@request.context = 'default'", expect: { guest: ALL_POSTS, bob: ALL_POSTS } },
  {
    rule: "@request.headers.authorization ~ 'Bearer '",
    expect: { guest: [], alice: ALL_POSTS, carol: ALL_POSTS },
  },
  {
    collection: 'teams',
    rule: 'members_via_team.user ?= @request.auth.id',
    expect: {
      guest: ['grey'],
      alice: ['red'],
      bob: ['red', 'blue'],
      carol: [],
      su: ['red', 'blue', 'grey'],
    },
  },
  {
    collection: 'teams',
    rule: 'members_via_team.user = @request.auth.id',
    expect: { guest: ['grey'], alice: [], bob: ['blue'], carol: [] },
  },
  {
    collection: 'teams',
    rule: 'members.id ?= @request.auth.id',
    expect: { guest: ['grey'], alice: ['red'], bob: ['red', 'blue'], carol: [] },
  },
  {
    collection: 'users',
    rule: 'id = @request.auth.id || emailVisibility = true',
    expect: {
      guest: ['alice', 'carol'],
      bob: ['alice', 'bob', 'carol'],
      carol: ['alice', 'carol'],
    },
  },
]

describe.each(listRules.map((c) => ({ collection: 'posts', ...c })))(
  '$collection: `$rule`',
  (c) => {
    const { collection } = c
    beforeAll(() => setRules(collection, { listRule: c.rule }))
    const scenarios = rows(
      ...Object.entries(c.expect).map(([who, names]): Row => [
        `${who} lists ${names.join(',') || 'nothing'}`,
        who as Who,
        'GET',
        list(collection),
        200,
        items(...names),
      ]),
    )
    it.each(scenarios)('$name', run)
  },
)

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
  it.each(
    rows(
      ['guest views p1', 'guest', 'GET', P1, 404, nf],
      ['bob views p1', 'bob', 'GET', P1, 404, nf],
      ['alice views p1', 'alice', 'GET', P1, 200, { expectedContent: { title: 'Alpha' } }],
      ['alice views a missing id', 'alice', 'GET', one('posts', 'nope'), 404, nf],
      ['su views p2', 'su', 'GET', one('posts', 'p2'), 200, { expectedContent: { title: 'Beta' } }],
      ['guest updates p1', 'guest', 'PATCH', P1, 404, hacked],
      ['bob updates p1', 'bob', 'PATCH', P1, 404, hacked],
      ['p1 is unchanged', 'su', 'GET', P1, 200, { expectedContent: { title: 'Alpha' } }],
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
  )('$name', run)
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
  it.each(
    rows(
      ...denied('guest'),
      ...denied('alice'),
      ['su lists', 'su', 'GET', VAULT, 200, items('v1')],
      ['su views', 'su', 'GET', V1, 200, { expectedContent: { note: 'top secret' } }],
      ['su updates', 'su', 'PATCH', V1, 200, { body: { note: 'top secret' } }],
      ['su creates', 'su', 'POST', VAULT, 200, send({ note: 'new' })],
      ['v1 is intact', 'su', 'GET', VAULT, 200, items('v1')],
    ),
  )('$name', run)
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
  it.each(
    rows(
      ['guest lists', 'guest', 'GET', COMMENTS, 200, items()],
      ['alice lists', 'alice', 'GET', COMMENTS, 200, items('c1', 'c3')],
      ['bob lists', 'bob', 'GET', COMMENTS, 200, items('c2')],
      ['carol lists', 'carol', 'GET', COMMENTS, 200, items()],
      ['alice views c1', 'alice', 'GET', C1, 200, { expectedContent: { message: 'Nice' } }],
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
  )('$name', run)
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
  it.each(
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
  )('$name', run)
  it('refused creates leave no row behind', async () => {
    expect(await count('posts')).toBe(before)
  })
})

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
    it.each(
      rows(
        ['tags a,b', 'alice', 'POST', POSTS, 200, tags(['a', 'b'], { expectedContent: ab })],
        ['no tags', 'alice', 'POST', POSTS, 200, tags([])],
        ['tags c (an item fails :each)', 'alice', 'POST', POSTS, 400, tags(['c'], refused)],
        ['tags a,c', 'alice', 'POST', POSTS, 400, tags(['a', 'c'], refused)],
        ['tags a,b,d (too long)', 'alice', 'POST', POSTS, 400, tags(['a', 'b', 'd'], refused)],
        ['tags+ c', 'alice', 'POST', POSTS, 400, send({ author: ALICE, 'tags+': 'c' }, refused)],
        ['guest with tags a', 'guest', 'POST', POSTS, 400, tags(['a'], refused)],
      ),
    )('$name', run)
  })

  describe('numbers of a multipart body are compared as numbers', () => {
    beforeAll(() => setRules('posts', { createRule: '@request.body.score > 5' }))
    const form = (score: string, more: Partial<Scenario> = {}) => ({
      form: { title: 'scored', score },
      cleanup: true,
      ...more,
    })
    it.each(
      rows(
        [
          'json 10',
          'alice',
          'POST',
          POSTS,
          200,
          send({ score: 10 }, { expectedContent: { score: 10 } }),
        ],
        ['json 3', 'alice', 'POST', POSTS, 400, send({ score: 3 }, refused)],
        ['form 10', 'alice', 'POST', POSTS, 200, form('10', { expectedContent: { score: 10 } })],
        ['form 010', 'alice', 'POST', POSTS, 200, form('010', { expectedContent: { score: 10 } })],
        ['form 03', 'alice', 'POST', POSTS, 400, form('03', refused)],
        ['form 3', 'alice', 'POST', POSTS, 400, form('3', refused)],
      ),
    )('$name', run)
  })

  describe('submitted relation joined (`@request.body.team.members.id`)', () => {
    beforeAll(() =>
      setRules('posts', { createRule: '@request.body.team.members.id ?= @request.auth.id' }),
    )
    const team = (name: string, more: Partial<Scenario> = {}) =>
      send({ author: ALICE, team: id(name) }, more)
    it.each(
      rows(
        ['alice posts in red', 'alice', 'POST', POSTS, 200, team('red')],
        ['alice posts in blue', 'alice', 'POST', POSTS, 400, team('blue', refused)],
        ['bob posts in blue', 'bob', 'POST', POSTS, 200, team('blue')],
        ['carol posts in grey', 'carol', 'POST', POSTS, 400, team('grey', refused)],
        ['guest posts in red', 'guest', 'POST', POSTS, 400, team('red', refused)],
      ),
    )('$name', run)
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
    it.each(
      rows(
        ['guest with the key', 'guest', 'GET', KEYED, 200, items('p1', 'p4')],
        ['guest with a wrong key', 'guest', 'GET', list('posts', 'key=open'), 200, items()],
        ['guest without a key', 'guest', 'GET', POSTS, 200, items()],
        ['view, empty key (isset)', 'guest', 'GET', `${P2}?key=`, 200, { expectedContent: beta }],
        ['view without a key', 'guest', 'GET', P2, 404, nf],
      ),
    )('$name', run)
  })

  describe('headers (snake_cased names)', () => {
    beforeAll(() => setRules('posts', { listRule: "@request.headers.x_api_key = 'k-123'" }))
    const key = (value: string, names: string[]) => ({
      headers: { 'X-Api-Key': value },
      ...items(...names),
    })
    it.each(
      rows(
        ['X-Api-Key: k-123', 'guest', 'GET', POSTS, 200, key('k-123', ALL_POSTS)],
        ['X-Api-Key: k-124', 'alice', 'GET', POSTS, 200, key('k-124', [])],
        ['no header', 'guest', 'GET', POSTS, 200, items()],
      ),
    )('$name', run)
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
    it.each(
      rows(
        ['list (GET)', 'alice', 'GET', POSTS, 200, items()],
        ['view (GET)', 'guest', 'GET', P1, 200],
        ['update (PATCH)', 'bob', 'PATCH', P1, 200, { body: { title: 'Alpha' } }],
        ['delete (DELETE)', 'bob', 'DELETE', P1, 404, nf],
        ['create (POST) as alice', 'alice', 'POST', POSTS, 200, send({ title: 'posted' })],
        ['create (POST) as guest', 'guest', 'POST', POSTS, 400, send({ title: 'posted' }, refused)],
      ),
    )('$name', run)
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
    it.each(
      rows(
        ['alice edits the title of p3', 'alice', 'PATCH', P3, 200, { body: { title: 'Gamma' } }],
        ['alice submits a status', 'alice', 'PATCH', P3, 404, { body: { status: 'live' }, ...nf }],
        ['alice submits the same status', 'alice', 'PATCH', P3, 404, { body: { status: 'draft' } }],
        ['bob edits p3', 'bob', 'PATCH', P3, 404, { body: { title: 'x' }, ...nf }],
        ['p3 is still a draft', 'guest', 'GET', P3, 200, { expectedContent: { status: 'draft' } }],
      ),
    )('$name', run)
  })

  describe('@request.body after `field+` modifiers are resolved', () => {
    beforeAll(() =>
      setRules('posts', {
        updateRule: "author = @request.auth.id && @request.body.tags:each != 'c'",
      }),
    )
    const tagged = (...tags: string[]) => ({ expectedContent: { tags } })
    afterAll(async () => {
      const res = await t.api('PATCH', P3, { token: t.suToken, body: { tags: [] } })
      expect(res.status).toBe(200)
    })
    it.each(
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
    )('$name', run)
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
    const kept = { expectedContent: member }
    it.each(
      rows(
        ['alice renames herself', 'alice', 'PATCH', A, 200, { body: named, ...kept }],
        ['alice makes herself admin', 'alice', 'PATCH', A, 404, { body: { role: 'admin' }, ...nf }],
        ['alice submits her current role', 'alice', 'PATCH', A, 200, { body: { role: 'member' } }],
        ['bob renames alice', 'bob', 'PATCH', A, 404, { body: { name: 'X' }, ...nf }],
        ['su changes a role', 'su', 'PATCH', C, 200, { body: { role: 'admin' } }],
        ['alice is still a member', 'su', 'GET', A, 200, kept],
      ),
    )('$name', run)
  })
})

describe('client filter and sort of non-superusers', () => {
  beforeAll(async () => {
    await setRules('posts', { listRule: '', viewRule: '' })
    await setRules('teams', { listRule: '' })
    await setRules('users', { listRule: '' })
  })
  const filter = (collection: string, text: string) => list(collection, q({ filter: text }))
  const F = (text: string) => filter('posts', text)
  const U = (text: string) => filter('users', text)
  const S = (text: string) => list('posts', q({ sort: text }))
  const byRequest = { expectedMessage: BY_REQUEST }
  const byCollection = { expectedMessage: BY_COLLECTION }
  it.each(
    gets(
      ['alice', F("@request.auth.id != ''"), 403, byRequest],
      ['su', F("@request.auth.id != ''"), 200, items(...ALL_POSTS)],
      ['alice', F("@collection.members.user ?= 'x'"), 403, byCollection],
      ['su', F('@collection.members.team ?= team'), 200, items('p1', 'p2')],
      ['guest', S('@request.auth.id'), 403, byRequest],
      // PocketBase checks the raw parameter text, before parsing, @collection. first
      ['guest', F("title = '@request.auth.id'"), 403, byRequest],
      ['guest', F("@request.auth.id = '' && @collection.members.id != ''"), 403, byCollection],
      // hidden fields: usable by superusers only
      ['alice', F("secret = 'alpha-secret'"), 400],
      ['alice', S('secret'), 400],
      ['su', F("secret = 'alpha-secret'"), 200, items('p1')],
      ['su', S('-secret,title'), 200, inOrder('p2', 'p1', 'p4', 'p3')],
      // e-mails match only where emailVisibility is true, unless a superuser asks
      ['guest', U("email ~ 'example.com'"), 200, items('alice', 'carol')],
      ['guest', U("email = 'bob@example.com'"), 200, items()],
      ['bob', U("email = 'bob@example.com'"), 200, items()],
      ['su', U("email ~ 'example.com'"), 200, items('alice', 'bob', 'carol')],
      ['guest', F("author.email ~ 'example.com'"), 200, items('p1', 'p3', 'p4')],
      ['guest', F("author.email = 'bob@example.com'"), 200, items()],
      ['su', F("author.email = 'bob@example.com'"), 200, items('p2')],
      // relation paths in filter and sort
      ['guest', F("team.members.name ?= 'Bob'"), 200, items('p1', 'p2')],
      ['su', S('-author.name,title'), 200, inOrder('p4', 'p2', 'p1', 'p3')],
      ['alice', S('team.name,title'), 200, inOrder('p3', 'p2', 'p4', 'p1')],
      ['su', S('-@rowid'), 200, inOrder('p4', 'p3', 'p2', 'p1')],
    ),
  )('$name', run)

  describe('users listRule `id = @request.auth.id` is ANDed into the join', () => {
    beforeAll(() => setRules('users', { listRule: 'id = @request.auth.id' }))
    const byBob = F("author.name = 'Bob'")
    it.each(
      gets(
        ['alice', byBob, 200, items()],
        ['bob', byBob, 200, items('p2')],
        ['su', byBob, 200, items('p2')],
      ),
    )('$name', run)
  })

  describe('users listRule null refuses the path', () => {
    beforeAll(() => setRules('users', { listRule: null }))
    afterAll(() => setRules('users', { listRule: 'id = @request.auth.id' }))
    const byBob = F("author.name = 'Bob'")
    it.each(
      gets(
        ['alice', byBob, 400],
        ['guest', S('author.name'), 400],
        ['su', byBob, 200, items('p2')],
      ),
    )('$name', run)
  })

  it('sorts by @random: every record, in more than one order', async () => {
    const orders = new Set<string>()
    for (let i = 0; i < 25; i++) {
      const res = await t.api('GET', S('@random'), { token: tokens.alice })
      expect(res.status).toBe(200)
      const ids = (res.body.items as { id: string }[]).map((r) => short(r.id))
      expect([...ids].sort()).toEqual(ALL_POSTS)
      orders.add(ids.join(','))
    }
    expect(orders.size).toBeGreaterThan(1)
  })
})

describe('authRule', () => {
  beforeAll(async () => {
    await createCollection({ name: 'staff', type: 'auth', authRule: 'verified = true' })
    for (const [name, verified] of [
      ['sam', true],
      ['una', false],
    ] as const) {
      await create('staff', {
        id: id(name),
        email: `${name}@corp.test`,
        password: PASSWORD,
        passwordConfirm: PASSWORD,
        verified,
      })
    }
  })

  it('refuses an unverified record and signs in a verified one', async () => {
    const una = await signIn('staff', 'una@corp.test')
    expect(una.status).toBe(403)
    expect(una.body).toEqual({ code: 403, message: AUTH_RULE, data: {} })
    const sam = await signIn('staff', 'sam@corp.test')
    expect(sam.status, JSON.stringify(sam.body)).toBe(200)
    expect(sam.body.record.id).toBe(id('sam'))
    expect(typeof sam.body.token).toBe('string')
  })

  it('a wrong password is still a 400, whatever the authRule', async () => {
    const res = await t.api('POST', '/api/collections/staff/auth-with-password', {
      body: { identity: 'una@corp.test', password: 'wrong-password' },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Failed to authenticate.')
  })

  it('a null authRule refuses everyone, an empty one nobody', async () => {
    const closed = await t.api('PATCH', '/api/collections/staff', {
      token: t.suToken,
      body: { authRule: null },
    })
    expect(closed.status).toBe(200)
    const sam = await signIn('staff', 'sam@corp.test')
    expect(sam.status).toBe(403)
    expect(sam.body.message).toBe(AUTH_RULE)
    const open = await t.api('PATCH', '/api/collections/staff', {
      token: t.suToken,
      body: { authRule: '' },
    })
    expect(open.status).toBe(200)
    const una = await signIn('staff', 'una@corp.test')
    expect(una.status, JSON.stringify(una.body)).toBe(200)
    expect(una.body.record.id).toBe(id('una'))
  })
})
