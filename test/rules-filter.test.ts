/**
 * Client `filter` and `sort` of non-superusers (@request, @collection, hidden fields, e-mails,
 * relation paths, @random) and the authRule of auth collections (test/helpers/rules.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ALL_POSTS,
  AUTH_RULE,
  BY_COLLECTION,
  BY_REQUEST,
  create,
  createCollection,
  gets,
  id,
  inOrder,
  items,
  itRules,
  list,
  PASSWORD,
  q,
  seedRules,
  server,
  setRules,
  short,
  signIn,
  tokens,
} from './helpers/rules.js'

seedRules()

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
  itRules(
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
  )

  describe('users listRule `id = @request.auth.id` is ANDed into the join', () => {
    beforeAll(() => setRules('users', { listRule: 'id = @request.auth.id' }))
    const byBob = F("author.name = 'Bob'")
    itRules(
      gets(
        ['alice', byBob, 200, items()],
        ['bob', byBob, 200, items('p2')],
        ['su', byBob, 200, items('p2')],
      ),
    )
  })

  describe('users listRule null refuses the path', () => {
    beforeAll(() => setRules('users', { listRule: null }))
    afterAll(() => setRules('users', { listRule: 'id = @request.auth.id' }))
    const byBob = F("author.name = 'Bob'")
    itRules(
      gets(
        ['alice', byBob, 400],
        ['guest', S('author.name'), 400],
        ['su', byBob, 200, items('p2')],
      ),
    )
  })

  it('sorts by @random: every record, in more than one order', async () => {
    const orders = new Set<string>()
    for (let i = 0; i < 25; i++) {
      const res = await server().api('GET', S('@random'), { token: tokens.alice })
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
    expect(una.body).toEqual({ code: 403, status: 403, message: AUTH_RULE, data: {} })
    const sam = await signIn('staff', 'sam@corp.test')
    expect(sam.status, JSON.stringify(sam.body)).toBe(200)
    expect(sam.body.record.id).toBe(id('sam'))
    expect(typeof sam.body.token).toBe('string')
  })

  it('a wrong password is still a 400, whatever the authRule', async () => {
    const res = await server().api('POST', '/api/collections/staff/auth-with-password', {
      body: { identity: 'una@corp.test', password: 'wrong-password' },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Failed to authenticate.')
  })

  it('a null authRule refuses everyone, an empty one nobody', async () => {
    const closed = await server().api('PATCH', '/api/collections/staff', {
      token: server().suToken,
      body: { authRule: null },
    })
    expect(closed.status).toBe(200)
    const sam = await signIn('staff', 'sam@corp.test')
    expect(sam.status).toBe(403)
    expect(sam.body.message).toBe(AUTH_RULE)
    const open = await server().api('PATCH', '/api/collections/staff', {
      token: server().suToken,
      body: { authRule: '' },
    })
    expect(open.status).toBe(200)
    const una = await signIn('staff', 'una@corp.test')
    expect(una.status, JSON.stringify(una.body)).toBe(200)
    expect(una.body.record.id).toBe(id('una'))
  })
})
