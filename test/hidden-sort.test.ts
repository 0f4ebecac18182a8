/**
 * Hidden values through sort (issue 11 point 4): a member who can list an auth collection and
 * insert rows into it must not learn a hidden e-mail by sorting probe rows around it. Sorting
 * sees what filtering sees: a hidden e-mail matches no filter, so it sorts as NULL; a hidden
 * field is refused for both. Superusers still sort by the real values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

const PASSWORD = 'password123'
let t: TestServer
let eve: string

const list = (collection: string, params: Record<string, string>): string =>
  `/api/collections/${collection}/records?${new URLSearchParams({ perPage: '500', ...params }).toString()}`

async function ok(method: string, path: string, body?: unknown, token = t.suToken) {
  const res = await t.api(method, path, { token, body })
  expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(200)
  return res.body
}

/** The names of the listed records, in order, as `who` sees them. */
async function names(collection: string, params: Record<string, string>, token: string) {
  const body = await ok('GET', list(collection, params), undefined, token)
  return (body.items as { name: string }[]).map((i) => i.name)
}

/** Gives the two hidden users each other's e-mail (a superuser edit). */
async function swapHiddenEmails(): Promise<void> {
  const [kate, bob] = ['kate', 'bob'].map((n) => `${n}0000000000000`.slice(0, 15))
  const k = await ok('GET', `/api/collections/members/records/${kate}`)
  const b = await ok('GET', `/api/collections/members/records/${bob}`)
  await ok('PATCH', `/api/collections/members/records/${kate}`, { email: 'tmp@hidden.io' })
  await ok('PATCH', `/api/collections/members/records/${bob}`, { email: k.email })
  await ok('PATCH', `/api/collections/members/records/${kate}`, { email: b.email })
}

beforeAll(async () => {
  t = await startServer()
  const members = await ok('POST', '/api/collections', {
    name: 'members',
    type: 'auth',
    listRule: '@request.auth.id != ""',
    viewRule: '@request.auth.id != ""',
    createRule: '',
    schema: [
      { name: 'name', type: 'text' },
      { name: 'secret', type: 'text', hidden: true },
    ],
  })
  await ok('POST', '/api/collections', {
    name: 'notes',
    type: 'base',
    listRule: '@request.auth.id != ""',
    viewRule: '@request.auth.id != ""',
    createRule: '@request.auth.id != ""',
    schema: [
      { name: 'name', type: 'text' },
      { name: 'author', type: 'relation', options: { collectionId: members.id, maxSelect: 1 } },
    ],
  })
  // Two members who hide their e-mail: what the attack is after.
  for (const [name, email] of [
    ['kate', 'kate@hidden.io'],
    ['bob', 'bob@hidden.io'],
  ]) {
    await ok('POST', '/api/collections/members/records', {
      id: `${name}0000000000000`.slice(0, 15),
      name,
      email,
      emailVisibility: false,
      secret: `${name}-secret`,
      password: PASSWORD,
      passwordConfirm: PASSWORD,
    })
  }
  // The attacker signs up, then inserts probe members with visible e-mails between which a
  // hidden one would fall, letter by letter.
  await ok(
    'POST',
    '/api/collections/members/records',
    { name: 'eve', email: 'eve@evil.io', password: PASSWORD, passwordConfirm: PASSWORD },
    '',
  )
  const login = await t.api('POST', '/api/collections/members/auth-with-password', {
    body: { identity: 'eve@evil.io', password: PASSWORD },
  })
  expect(login.status).toBe(200)
  eve = login.body.token as string
  for (const letter of ['a', 'c', 'j', 'l', 'z']) {
    await ok(
      'POST',
      '/api/collections/members/records',
      {
        name: `probe-${letter}`,
        email: `${letter}@probe.io`,
        emailVisibility: true,
        password: PASSWORD,
        passwordConfirm: PASSWORD,
      },
      '',
    )
  }
  for (const author of ['kate', 'bob']) {
    await ok(
      'POST',
      '/api/collections/notes/records',
      { name: `by-${author}`, author: `${author}0000000000000`.slice(0, 15) },
      eve,
    )
  }
})

afterAll(() => t.close())

describe('sorting by a hidden e-mail', () => {
  const attacks: [string, Record<string, string>][] = [
    ['members', { sort: 'email' }],
    ['members', { sort: '-email' }],
    ['members', { sort: 'email:lower,name' }],
    ['notes', { sort: 'author.email' }],
    ['notes', { sort: '-author.email:lower' }],
  ]

  it.each(attacks)('%s ?%j tells a member nothing about the hidden e-mails', async (c, p) => {
    const before = await names(c, p, eve)
    await swapHiddenEmails()
    const after = await names(c, p, eve)
    await swapHiddenEmails()
    // With the real e-mails sorted, swapping them swaps kate and bob (as the superuser sees).
    expect(after).toEqual(before)
    expect(before).toHaveLength(c === 'members' ? 8 : 2)
  })

  it('sorts hidden e-mails together, outside the visible ones', async () => {
    const order = await names('members', { sort: 'email' }, eve)
    const visible = order.filter((n) => n.startsWith('probe-'))
    expect(visible).toEqual(['probe-a', 'probe-c', 'probe-j', 'probe-l', 'probe-z'])
    // kate, bob and eve (whose own e-mail is hidden too) are one block at an end.
    const hidden = order.map((n, i) => (n.startsWith('probe-') ? -1 : i)).filter((i) => i >= 0)
    expect(hidden.length).toBe(3)
    expect(hidden[2]! - hidden[0]!).toBe(2)
    expect([0, order.length - 3]).toContain(hidden[0])
  })

  it('a superuser still sorts by the real e-mail', async () => {
    expect(await names('members', { sort: 'email' }, t.suToken)).toEqual([
      'probe-a',
      'bob',
      'probe-c',
      'eve',
      'probe-j',
      'kate',
      'probe-l',
      'probe-z',
    ])
    expect(await names('notes', { sort: '-author.email' }, t.suToken)).toEqual([
      'by-kate',
      'by-bob',
    ])
    await swapHiddenEmails()
    expect(await names('notes', { sort: '-author.email' }, t.suToken)).toEqual([
      'by-bob',
      'by-kate',
    ])
    await swapHiddenEmails()
  })

  it('filters see the same thing: a hidden e-mail matches nothing', async () => {
    for (const filter of ['email ~ "hidden"', 'email < "m"', 'email > ""', 'email = ""']) {
      const got = await names('members', { filter, sort: 'name' }, eve)
      expect(
        got.filter((n) => !n.startsWith('probe-')),
        filter,
      ).toEqual([])
    }
    expect(await names('notes', { filter: 'author.email ~ "k"' }, eve)).toEqual([])
    expect(await names('members', { filter: 'email ~ "hidden"', sort: 'name' }, t.suToken)).toEqual(
      ['bob', 'kate'],
    )
  })
})

describe('hidden fields', () => {
  const refused: [string, Record<string, string>, string][] = [
    ['members', { sort: 'secret' }, 'Invalid sort: the field "secret" is hidden.'],
    ['members', { filter: 'secret > "a"' }, 'Invalid filter: the field "secret" is hidden.'],
    ['members', { sort: '-tokenKey' }, 'Invalid sort: the field "tokenKey" is hidden.'],
    ['members', { sort: 'password' }, 'Invalid sort: the field "password" is hidden.'],
    ['notes', { sort: 'author.secret' }, 'Invalid sort: the field "author.secret" is hidden.'],
    [
      'notes',
      { filter: 'author.secret ~ "k"' },
      'Invalid filter: the field "author.secret" is hidden.',
    ],
  ]
  it.each(refused)('%s ?%j is a 400 for a member', async (c, p, message) => {
    const res = await t.api('GET', list(c, p), { token: eve })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, status: 400, message, data: {} })
  })

  it('a superuser sorts and filters by hidden fields', async () => {
    expect(await names('members', { sort: '-secret', filter: 'secret != ""' }, t.suToken)).toEqual([
      'kate',
      'bob',
    ])
    expect(await names('notes', { sort: 'author.secret' }, t.suToken)).toEqual([
      'by-bob',
      'by-kate',
    ])
  })
})

describe('fields= and expand', () => {
  it('never show a hidden e-mail or hidden field to a member', async () => {
    const body = await ok(
      'GET',
      list('members', { sort: 'name', fields: 'name,email,secret,tokenKey' }),
      undefined,
      eve,
    )
    const byName = Object.fromEntries(
      (body.items as Record<string, unknown>[]).map((i) => [i.name, i]),
    )
    expect(byName.kate).toEqual({ name: 'kate' })
    expect(byName.bob).toEqual({ name: 'bob' })
    expect(byName.eve).toEqual({ name: 'eve', email: 'eve@evil.io' }) // the requester's own
    expect(byName['probe-a']).toEqual({ name: 'probe-a', email: 'a@probe.io' })
    const notes = await ok(
      'GET',
      list('notes', { expand: 'author', fields: 'name,expand.author.email,expand.author.name' }),
      undefined,
      eve,
    )
    for (const note of notes.items as { expand: { author: Record<string, unknown> } }[]) {
      expect(Object.keys(note.expand.author)).toEqual(['name'])
    }
  })
})
