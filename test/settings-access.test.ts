/** Who may read and change /api/settings, and what a superuser reads on a fresh server. */
import { expect } from 'vitest'
import { runScenarios, type Scenario, type ScenarioResponse } from './helpers/scenario.js'
import type { TestServer } from './helpers/server.js'
import { PUBLIC_DEFAULTS } from './helpers/settings-fixtures.js'

const GUEST = {
  code: 401,
  status: 401,
  message: 'The request requires valid record authorization token.',
  data: {},
}
const USER = {
  code: 403,
  status: 403,
  message: 'The authorized record is not allowed to perform this action.',
  data: {},
}

let userToken = ''

/** The exact body, and settings left as they were. */
const refused = (body: unknown) => (res: ScenarioResponse, t: TestServer) => {
  expect(res.body).toEqual(body)
  expect(t.server.app.settings.get().meta.appName).toBe('svcbase')
}

const denied = (method: 'GET' | 'PATCH'): Scenario[] => {
  const body = method === 'PATCH' ? { meta: { appName: 'Hijacked' } } : undefined
  const base = { method, url: '/api/settings', body, expectedEvents: { 'bus:settings': 0, '*': 0 } }
  return [
    {
      ...base,
      name: `${method} answers 401 without a token`,
      expectedStatus: 401,
      expect: refused(GUEST),
    },
    {
      ...base,
      name: `${method} answers 403 for a non-superuser`,
      token: () => userToken,
      expectedStatus: 403,
      expect: refused(USER),
    },
  ]
}

runScenarios(
  'GET/PATCH /api/settings access',
  async (t) => {
    const created = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(created.status).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    userToken = login.body.token as string
  },
  [
    ...denied('GET'),
    ...denied('PATCH'),
    {
      name: 'returns the defaults of every group, secrets left out',
      method: 'GET',
      url: '/api/settings',
      token: 'superuser',
      expectedStatus: 200,
      notExpectedContent: ['"password"', '"secret"', '"apiKey"', '"authToken"', '"privateKey"'],
      expectedEvents: { 'bus:settings': 0, '*': 0 },
      expect: (res) => expect(res.body).toEqual(PUBLIC_DEFAULTS),
    },
  ],
)
