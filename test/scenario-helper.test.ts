/**
 * The scenario helper (test/helpers/scenario.ts) checks what it claims: every kind of wrong
 * expectation fails, naming the scenario and showing the body; right ones pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hook, type HookEvent } from '../src/tools/hook.js'
import {
  eventDifferences,
  itScenarios,
  runScenario,
  runScenarios,
  type Scenario,
  type ScenarioResponse,
} from './helpers/scenario.js'
import { startServer, type TestServer } from './helpers/server.js'

const NOTES = '/api/collections/notes/records'

describe('eventDifferences', () => {
  it.each<[string, Record<string, number>, Record<string, number>, string[]]>([
    ['equal counts', { a: 1, b: 2 }, { a: 1, b: 2 }, []],
    ['nothing expected, nothing fired', {}, {}, []],
    ['a count differs', { a: 2 }, { a: 1 }, ['a: expected 2, fired 1']],
    ['an expected one did not fire', { a: 1 }, {}, ['a: expected 1, fired 0']],
    ['an unlisted one fired', { a: 1 }, { a: 1, b: 3 }, ['b: fired 3, not expected']],
    ['nothing expected, one fired', {}, { b: 1 }, ['b: fired 1, not expected']],
    ['a 0 that fired', { a: 0 }, { a: 1 }, ['a: expected 0, fired 1']],
    ['a 0 that did not fire', { a: 0 }, {}, []],
    ["'*' allows unlisted ones", { a: 1, '*': 0 }, { a: 1, b: 3 }, []],
    ["'*' still checks listed ones", { a: 1, '*': 0 }, { b: 3 }, ['a: expected 1, fired 0']],
  ])('%s', (_name, expected, actual, diff) => {
    expect(eventDifferences(expected, actual)).toEqual(diff)
  })
})

describe('runScenario against a real server', () => {
  let t: TestServer
  let userToken: string

  beforeAll(async () => {
    t = await startServer()
    const notes = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'notes',
        listRule: '',
        viewRule: '',
        createRule: '@request.auth.id != ""',
        schema: [{ name: 'text', type: 'text', required: true }],
      },
    })
    expect(notes.status, JSON.stringify(notes.body)).toBe(200)
    const user = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(user.status).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    userToken = login.body.token as string
  })
  afterAll(() => t.close())

  const create: Scenario = {
    name: 'superuser creates a note',
    method: 'POST',
    url: NOTES,
    token: 'superuser',
    body: { text: 'hello' },
    expectedStatus: 200,
    expectedContent: ['"text":"hello"', '"collectionName":"notes"'],
    notExpectedContent: ['"password"'],
    expectedEvents: {
      onRecordCreate: 1,
      onRecordAfterCreateSuccess: 1,
      'bus:record.create': 1,
      '*': 0,
    },
  }
  /** Runs `s` and returns how it failed (it must fail). */
  const failure = async (s: Scenario): Promise<string> => {
    const err: unknown = await runScenario(t, s).then(
      () => null,
      (e: unknown) => e,
    )
    expect(err, `${s.name} passed`).toBeInstanceOf(Error)
    return (err as Error).message
  }

  it('passes a right scenario and returns the response', async () => {
    const res = await runScenario(t, create)
    expect(res.status).toBe(200)
    expect(res.body.text).toBe('hello')
    expect(JSON.parse(res.text)).toEqual(res.body)
  })

  it('fails on a wrong status, naming the scenario and request and showing the body', async () => {
    const message = await failure({ ...create, name: 'wrong status', expectedStatus: 201 })
    expect(message).toContain(`scenario "wrong status" (POST ${NOTES})`)
    expect(message).toContain('expected status 201, got 200')
    expect(message).toMatch(/body: \{.*"text":"hello".*\}/)
  })

  it('fails on a missing fragment, listing only the missing ones', async () => {
    const message = await failure({
      ...create,
      name: 'missing',
      expectedContent: ['"text":"hello"', '"text":"bye"', '"nope":1'],
    })
    expect(message).toContain('missing from the body:\n  "text":"bye"\n  "nope":1\nbody: {')
    expect(message).not.toContain('  "text":"hello"\n')
  })

  it('compares fragments with the compact JSON and the raw text otherwise', async () => {
    await runScenario(t, {
      name: 'compact',
      method: 'GET',
      url: '/api/health',
      expectedStatus: 200,
      expectedContent: ['"code":200'],
    })
    const message = await failure({
      name: 'spaced',
      method: 'GET',
      url: '/api/health',
      expectedStatus: 200,
      expectedContent: ['"code": 200'],
    })
    expect(message).toContain('missing from the body:\n  "code": 200')
  })

  it('fails on a fragment that must not be there', async () => {
    const message = await failure({
      ...create,
      name: 'present',
      notExpectedContent: ['"password"', '"text":"hello"'],
    })
    expect(message).toContain('must not be in the body:\n  "text":"hello"\nbody: {')
    expect(message).not.toContain('  "password"')
  })

  it('fails when an event count differs', async () => {
    const message = await failure({
      ...create,
      name: 'two creates?',
      expectedEvents: { onRecordCreate: 2, '*': 0 },
    })
    expect(message).toContain('events differ:\n  onRecordCreate: expected 2, fired 1\nfired: {')
    expect(message).toContain('"bus:record.create":1')
    expect(message).toContain('body: {')
  })

  it('fails when an unlisted event fired (no `*`)', async () => {
    const message = await failure({
      ...create,
      name: 'strict',
      expectedEvents: { onRecordCreate: 1 },
    })
    expect(message).toContain('onRecordAfterCreateSuccess: fired 1, not expected')
    expect(message).toContain('bus:record.create: fired 1, not expected')
  })

  it('counts nothing for a request that changes nothing, and `{}` passes then', async () => {
    await runScenario(t, {
      name: 'guest reads the settings',
      method: 'GET',
      url: '/api/settings',
      expectedStatus: 401,
      expectedEvents: {},
    })
  })

  it('tells a refused create (no after-success hook, no bus event) from a done one', async () => {
    const refused: Scenario = {
      name: 'guest may not create',
      method: 'POST',
      url: NOTES,
      body: { text: 'x' },
      expectedStatus: 400,
      expectedContent: ['"message":"Failed to create record."'],
      expectedEvents: { onRecordAfterCreateSuccess: 0, 'bus:record.create': 0, '*': 0 },
    }
    await runScenario(t, refused)
    const message = await failure({
      ...refused,
      token: userToken,
      expectedStatus: 200,
      expectedContent: [],
    })
    expect(message).toContain('onRecordAfterCreateSuccess: expected 0, fired 1')
    expect(message).toContain('bus:record.create: expected 0, fired 1')
  })

  it('counts every hook family the app has, also ones added later', async () => {
    const hooks = t.server.app.hooks as unknown as Record<string, Hook<HookEvent>>
    const custom = new Hook<HookEvent>()
    const bound = t.server.app.hooks.onRecordCreate.length
    hooks.onTestOnly = custom
    const relay = t.server.app.hooks.onRecordCreate.bind(async (e) => {
      await custom.trigger({}, () => {})
      await custom.trigger({}, () => {})
      await e.next()
    })
    try {
      await runScenario(t, {
        ...create,
        expectedEvents: { onTestOnly: 2, onRecordCreate: 1, '*': 0 },
      })
      expect(await failure({ ...create, expectedEvents: { onTestOnly: 1, '*': 0 } })).toContain(
        'onTestOnly: expected 1, fired 2',
      )
    } finally {
      t.server.app.hooks.onRecordCreate.unbind(relay)
      delete hooks.onTestOnly
    }
    expect(custom.length).toBe(0)
    expect(t.server.app.hooks.onRecordCreate.length).toBe(bound)
  })

  it('unbinds its counters afterwards', async () => {
    const before = t.server.app.hooks.onRecordAfterCreateSuccess.length
    await runScenario(t, create)
    await failure({ ...create, expectedStatus: 500 })
    expect(t.server.app.hooks.onRecordAfterCreateSuccess.length).toBe(before)
  })

  it('sends the token: superuser, a literal, a function, or none', async () => {
    const me = (token: Scenario['token'], status: number): Scenario => ({
      name: 'auth refresh',
      method: 'POST',
      url: '/api/collections/users/auth-refresh',
      token,
      expectedStatus: status,
    })
    await runScenario(t, me(userToken, 200))
    await runScenario(
      t,
      me(() => userToken, 200),
    )
    await runScenario(
      t,
      me(async () => Promise.resolve(userToken), 200),
    )
    await runScenario(t, me(null, 401))
    await runScenario(t, me(undefined, 401))
    await runScenario(t, me('superuser', 403))
  })

  it('resolves lazy url, headers and body, and sends a raw body as it is', async () => {
    const res = await runScenario(t, {
      name: 'lazy',
      method: 'POST',
      url: () => `${NOTES}?fields=text`,
      token: 'superuser',
      headers: async () => Promise.resolve({ 'x-trace': 'a' }),
      body: () => ({ text: 'lazy' }),
      expectedStatus: 200,
      expectedContent: ['{"text":"lazy"}'],
    })
    expect(res.body).toEqual({ text: 'lazy' })
    const form = new FormData()
    form.append('text', 'from a form')
    await runScenario(t, {
      name: 'multipart',
      method: 'POST',
      url: NOTES,
      token: 'superuser',
      raw: form,
      expectedStatus: 200,
      expectedContent: ['"text":"from a form"'],
    })
    const text = await runScenario(t, {
      name: 'raw text',
      method: 'POST',
      url: NOTES,
      token: 'superuser',
      headers: { 'content-type': 'application/json' },
      raw: '{"text": "raw"}',
      expectedStatus: 200,
      expectedContent: ['"text":"raw"'],
    })
    expect(text.body.text).toBe('raw')
  })

  it('runs beforeTest, the request, expect and afterTest in order', async () => {
    const seen: string[] = []
    await runScenario(t, {
      name: 'order',
      method: 'GET',
      url: '/api/health',
      expectedStatus: 200,
      beforeTest: () => seen.push('before'),
      expect: (res: ScenarioResponse) => seen.push(`expect ${res.status}`),
      afterTest: (_t, res) => seen.push(`after ${res.status}`),
    })
    expect(seen).toEqual(['before', 'expect 200', 'after 200'])
  })

  it('fails when expect() fails, and still runs afterTest', async () => {
    let cleaned = false
    const message = await failure({
      ...create,
      name: 'custom check',
      expect: (res) => expect(res.body.text).toBe('bye'),
      afterTest: () => {
        cleaned = true
      },
    })
    expect(message).toContain("expected 'hello' to be 'bye'")
    expect(cleaned).toBe(true)
  })

  it('runs afterTest after a failed check and reports the first failure', async () => {
    let cleaned = false
    const message = await failure({
      ...create,
      name: 'cleanup',
      expectedStatus: 204,
      afterTest: () => {
        cleaned = true
        throw new Error('cleanup failed')
      },
    })
    expect(cleaned).toBe(true)
    expect(message).toContain('expected status 204, got 200')
    const own = await failure({
      ...create,
      afterTest: () => {
        throw new Error('cleanup failed')
      },
    })
    expect(own).toBe('cleanup failed')
  })

  it('truncates a huge body in the message', async () => {
    const message = await failure({
      ...create,
      name: 'huge',
      body: { text: 'y'.repeat(4900) },
      expectedStatus: 201,
    })
    expect(message).toMatch(/… \(\d+ more characters\)$/)
    expect(message.length).toBeLessThan(4600)
  })

  describe('itScenarios', () => {
    itScenarios(
      () => t,
      [
        { name: 'declares an it per scenario', method: 'GET', url: NOTES, expectedStatus: 200 },
        {
          name: 'against the server given',
          method: 'GET',
          url: `${NOTES}?filter=${encodeURIComponent('text="hello"')}`,
          expectedStatus: 200,
          expectedContent: ['"text":"hello"'],
        },
      ],
    )
  })
})

runScenarios(
  'runScenarios: a fresh server per table',
  async (t) => {
    const res = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { meta: { appName: 'Scenario App' } },
    })
    expect(res.status).toBe(200)
  },
  [
    {
      name: 'guest is refused',
      method: 'GET',
      url: '/api/settings',
      expectedStatus: 401,
      expectedContent: ['"code":401', '"data":{}'],
    },
    {
      name: 'setup ran on this server',
      method: 'GET',
      url: '/api/settings',
      token: 'superuser',
      expectedStatus: 200,
      expectedContent: ['"appName":"Scenario App"'],
      notExpectedContent: ['"password"'],
      expectedEvents: { 'bus:settings': 0, '*': 0 },
    },
    {
      name: 'a settings change is one bus event',
      method: 'PATCH',
      url: '/api/settings',
      token: 'superuser',
      body: { meta: { appName: 'Changed' } },
      expectedStatus: 200,
      expectedContent: ['"appName":"Changed"'],
      expectedEvents: { 'bus:settings': 1, '*': 0 },
    },
  ],
)
