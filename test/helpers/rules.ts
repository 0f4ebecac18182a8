/**
 * The seeded server and the table language of the collection-rule tests (test/rules-*.test.ts),
 * in PocketBase's ApiScenario style: each table row is a request (method, url, caller, body,
 * headers) with the exact status, message and records it must produce, run through
 * `./scenario.ts`. Callers are a guest, three users (alice, bob, carol) and a superuser.
 *
 * Seed: orgs acme (pro) and beta (free); users alice (acme, member, email visible, verified),
 * bob (beta, member) and carol (admin, email visible); teams red (alice, bob), blue (bob) and
 * grey (nobody) with members m1-m3 rows; posts p1 (alice, red, live), p2 (bob, blue, draft,
 * future), p3 (alice, no team, draft), p4 (carol, grey, live); comments c1 (on p1), c2 (on p2);
 * vault v1 with every rule null.
 */
import { afterAll, beforeAll, expect } from 'vitest'
import { itScenarios, type Scenario as ApiScenario } from './scenario.js'
import { startServer, type TestServer } from './server.js'

export type Who = 'guest' | 'alice' | 'bob' | 'carol' | 'su'
export type Rules = Partial<
  Record<'listRule' | 'viewRule' | 'createRule' | 'updateRule' | 'deleteRule', string | null>
>

/** One API scenario: a request and everything its response must show. */
export interface Scenario {
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
  /** A subset the response body must match (`toMatchObject`). */
  expectedFields?: Record<string, unknown>
  /** Delete the created record afterwards (superuser), so later tables see the seed only. */
  cleanup?: boolean
}

export const ONLY_SU = 'Only superusers can perform this action.'
export const NOT_FOUND = "The requested resource wasn't found."
export const CREATE_FAILED = 'Failed to create record.'
export const BY_REQUEST = 'Only superusers can filter by @request.'
export const BY_COLLECTION = 'Only superusers can filter by @collection.'
export const AUTH_RULE = "The request doesn't satisfy the collection requirements to authenticate."
export const PASSWORD = 'password123'

/** A deterministic 15-character record id for a short name (`p1` → `p10000000000000`). */
export const id = (name: string): string => name.padEnd(15, '0')
/** The short name of an id made by `id()` (unknown ids stay recognisable, minus trailing 0s). */
export const short = (value: string): string => value.replace(/0+$/, '')

export const list = (collection: string, query = ''): string =>
  `/api/collections/${collection}/records${query === '' ? '' : `?${query}`}`
export const one = (collection: string, name: string): string =>
  `/api/collections/${collection}/records/${id(name)}`
export const q = (params: Record<string, string>): string => new URLSearchParams(params).toString()

export const ALL_POSTS = ['p1', 'p2', 'p3', 'p4']

/** A table row: name, caller, method, url, expected status, then body, headers, expectations. */
export type Row = [string, Who, Scenario['method'], string, number, Partial<Scenario>?]
export const rows = (...table: Row[]): Scenario[] =>
  table.map(([name, as, method, url, expectedStatus, more]) => ({
    name,
    as,
    method,
    url,
    expectedStatus,
    ...more,
  }))
/** A GET row named after its caller and url: caller, url, expected status, expectations. */
export type GetRow = [Who, string, number, Partial<Scenario>?]
export const gets = (...table: GetRow[]): Scenario[] =>
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
export const nf = { expectedMessage: NOT_FOUND }
export const refused = { expectedMessage: CREATE_FAILED }
export const suOnly = { expectedMessage: ONLY_SU }
export const items = (...names: string[]): Partial<Scenario> => ({ expectedItems: names })
export const inOrder = (...names: string[]): Partial<Scenario> => ({
  expectedItems: names,
  ordered: true,
})
/** A request body; a 200 create is deleted again (`cleanup`) so later tables see the seed. */
export const send = (
  body: Record<string, unknown>,
  more: Partial<Scenario> = {},
): Partial<Scenario> => ({
  body,
  cleanup: true,
  ...more,
})
export const POSTS = list('posts')
export const P1 = one('posts', 'p1')
export const P3 = one('posts', 'p3')
export const ALICE = id('alice')
export const BOB = id('bob')

let t: TestServer
/** The running server (inside tests and hooks). */
export const server = (): TestServer => t
/** The token of each caller (null for the guest), set by `seedRules`. */
export const tokens: Record<Who, string | null> = {
  guest: null,
  alice: null,
  bob: null,
  carol: null,
  su: null,
}

export async function setRules(collection: string, rules: Rules): Promise<void> {
  const res = await t.api('PATCH', `/api/collections/${collection}`, {
    token: t.suToken,
    body: rules,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
}

export async function create(collection: string, body: Record<string, unknown>): Promise<void> {
  const res = await t.api('POST', list(collection), { token: t.suToken, body })
  expect(res.status, `${collection} ${JSON.stringify(res.body)}`).toBe(200)
}

export async function createCollection(body: Record<string, unknown>): Promise<string> {
  const res = await t.api('POST', '/api/collections', { token: t.suToken, body })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.id as string
}

export async function signIn(collection: string, email: string) {
  return t.api('POST', `/api/collections/${collection}/auth-with-password`, {
    body: { identity: email, password: PASSWORD },
  })
}

/** The scenario of the shared helper for a table row; its `expect` holds the checks above. */
function toApi(s: Scenario): ApiScenario {
  return {
    name: s.name,
    method: s.method,
    url: s.url,
    token: () => tokens[s.as],
    body: s.body,
    raw: s.form ? () => form(s.form!) : undefined,
    headers: s.headers,
    expectedStatus: s.expectedStatus,
    expect(res) {
      const shown = res.text
      if (s.expectedStatus >= 400) {
        expect(Object.keys(res.body).sort(), shown).toEqual(['code', 'data', 'message', 'status'])
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
      if (s.expectedFields) expect(res.body).toMatchObject(s.expectedFields)
    },
    async afterTest(t, res) {
      if (s.cleanup && res.status === 200) {
        const url = `${s.url.split('?')[0]!}/${res.body.id as string}`
        const del = await t.api('DELETE', url, { token: t.suToken })
        expect(del.status).toBe(204)
      }
    },
  }
}

function form(fields: Record<string, string>): FormData {
  const raw = new FormData()
  for (const [k, v] of Object.entries(fields)) raw.append(k, v)
  return raw
}

/** One `it` per row, named after it, against the seeded server. */
export function itRules(scenarios: Scenario[]): void {
  itScenarios(server, scenarios.map(toApi))
}

/** Superuser count of a collection, to prove that refused creates left nothing behind. */
export async function count(collection: string): Promise<number> {
  const res = await t.api('GET', list(collection, 'perPage=500'), { token: t.suToken })
  expect(res.status).toBe(200)
  return res.body.totalItems as number
}

/** Starts and seeds the server of this test file (call once, at the top level). */
export function seedRules(): void {
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
        {
          name: 'author',
          type: 'relation',
          options: { collectionId: users.body.id, maxSelect: 1 },
        },
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
    await person('alice', {
      org: id('acme'),
      role: 'member',
      emailVisibility: true,
      verified: true,
    })
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
}
