/**
 * OAuth2 provider configuration: precise 400s for bad configs, the write-only client secret
 * (never answered, by the API or `svcbase schema export`; kept when an update omits it), the
 * superuser list of presets, discovery failures, MFA with oauth2 as a factor, and the routes
 * gone with the feature disabled.
 */
import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authorize, startOidc, type TestOidc } from './helpers/oidc.js'
import { startServer, type TestServer } from './helpers/server.js'

const APP_REDIRECT = 'http://127.0.0.1:9/cb'
const SECRET = 'very-secret-client-secret'

let s: TestServer
let oidc: TestOidc

beforeAll(async () => {
  s = await startServer()
  oidc = await startOidc([
    { client_id: 'cfg-client', client_secret: SECRET, redirect_uris: [APP_REDIRECT] },
  ])
})

afterAll(async () => {
  await s?.close()
  await oidc?.close()
})

const provider = (over: Record<string, unknown> = {}) => ({
  name: 'oidc',
  clientId: 'cfg-client',
  clientSecret: SECRET,
  extra: { issuer: oidc.issuer },
  ...over,
})

async function patchUsers(oauth2: Record<string, unknown>, top = true) {
  return s.api('PATCH', '/api/collections/users', {
    token: s.suToken,
    body: top ? { oauth2 } : { authOptions: { oauth2 } },
  })
}

async function signIn(login: string) {
  const m = await s.api('GET', '/api/collections/users/auth-methods')
  const p = m.body.oauth2.providers.find((x: any) => x.name === 'oidc')
  const { code } = await authorize(
    p.authURL + encodeURIComponent(APP_REDIRECT),
    login,
    APP_REDIRECT,
  )
  return s.api('POST', '/api/collections/users/auth-with-oauth2', {
    body: { provider: 'oidc', code, codeVerifier: p.codeVerifier, redirectURL: APP_REDIRECT },
  })
}

describe('provider config validation', () => {
  const cases: [string, () => unknown[], string, string][] = [
    ['missing clientId', () => [provider({ clientId: '' })], '0.clientId', 'validation_required'],
    ['missing name', () => [provider({ name: '' })], '0.name', 'validation_required'],
    ['duplicate names', () => [provider(), provider()], '1.name', 'validation_not_unique'],
    ['bad URL', () => [provider({ tokenURL: 'ftp://x' })], '0.tokenURL', 'validation_is_url'],
    [
      'unknown name without URLs',
      () => [{ name: 'myidp', clientId: 'x' }],
      '0.name',
      'validation_invalid_value',
    ],
    [
      'oidc without issuer or URLs',
      () => [{ name: 'oidc', clientId: 'x' }],
      '0.name',
      'validation_invalid_value',
    ],
    [
      'oidc with URLs but no user info URL, issuer or JWKS',
      () => [
        { name: 'oidc', clientId: 'x', authURL: 'http://a.test/a', tokenURL: 'http://a.test/t' },
      ],
      '0.userInfoURL',
      'validation_required',
    ],
    [
      'pkce of another type',
      () => [provider({ pkce: 'yes' })],
      '0.pkce',
      'validation_invalid_value',
    ],
    [
      'bad issuer',
      () => [provider({ extra: { issuer: 'nope' } })],
      '0.extra.issuer',
      'validation_is_url',
    ],
    [
      'a mapped field that does not exist',
      () => [provider({ mappedFields: { name: 'nickname' } })],
      '0.mappedFields.name',
      'validation_in_invalid',
    ],
  ]
  for (const [what, providers, path, code] of cases) {
    it(`400 for ${what}`, async () => {
      const res = await patchUsers({ enabled: true, providers: providers() })
      expect(res.status, JSON.stringify(res.body)).toBe(400)
      expect(res.body.message).toBe('Failed to update collection.')
      let at: any = res.body.data.authOptions.oauth2.providers
      for (const k of path.split('.')) at = at?.[k]
      expect(at?.code, JSON.stringify(res.body.data)).toBe(code)
    })
  }

  it('a collection create with a bad provider is refused as a whole', async () => {
    const res = await s.api('POST', '/api/collections', {
      token: s.suToken,
      body: {
        name: 'members',
        type: 'auth',
        oauth2: { enabled: true, providers: [{ name: 'github' }] },
      },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Failed to create collection.')
    expect(res.body.data.authOptions.oauth2.providers['0'].clientId.code).toBe(
      'validation_required',
    )
    const gone = await s.api('GET', '/api/collections/members', { token: s.suToken })
    expect(gone.status).toBe(404)
  })
})

describe('the write-only client secret', () => {
  beforeAll(async () => {
    const res = await patchUsers({ enabled: true, providers: [provider()] }, false)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(JSON.stringify(res.body)).not.toContain(SECRET)
  })

  it('never appears in list, view, top-level view or the schema export', async () => {
    const view = await s.api('GET', '/api/collections/users', { token: s.suToken })
    expect(view.body.oauth2.providers[0]).toMatchObject({ name: 'oidc', clientId: 'cfg-client' })
    expect(view.body.oauth2.providers[0]).not.toHaveProperty('clientSecret')
    expect(view.body.authOptions.oauth2.providers[0]).not.toHaveProperty('clientSecret')
    const list = await s.api('GET', '/api/collections?perPage=500', { token: s.suToken })
    for (const r of [view, list]) expect(JSON.stringify(r.body)).not.toContain(SECRET)
    // the real CLI, as a child process, on the same data directory
    const cli = [
      '--import',
      pathToFileURL(resolve('node_modules/tsx/dist/loader.mjs')).href,
      resolve('src/cli.ts'),
    ]
    const out = await new Promise<string>((done, fail) =>
      execFile(process.execPath, [...cli, 'schema', 'export', `--dir=${s.dir}`], (err, stdout) => {
        if (err) fail(new Error(err.message))
        else done(stdout)
      }),
    )
    expect(out).toContain('"clientId": "cfg-client"')
    expect(out).not.toContain(SECRET)
  })

  it('is kept when an update omits it or sends it empty, and replaced when sent', async () => {
    const view = await s.api('GET', '/api/collections/users', { token: s.suToken })
    // the collection sent back as read (no secret), with an edit
    const edited = { ...view.body.oauth2 }
    edited.providers = [{ ...edited.providers[0], displayName: 'Company SSO' }]
    expect((await patchUsers(edited)).status).toBe(200)
    const first = await signIn('kept-1')
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    edited.providers = [{ ...edited.providers[0], clientSecret: '' }]
    expect((await patchUsers(edited)).status).toBe(200)
    expect((await signIn('kept-2')).status).toBe(200)
    const methods = await s.api('GET', '/api/collections/users/auth-methods')
    expect(methods.body.oauth2.providers[0].displayName).toBe('Company SSO')
    // a wrong secret sent replaces it: the provider refuses the exchange
    edited.providers = [{ ...edited.providers[0], clientSecret: 'wrong' }]
    expect((await patchUsers(edited)).status).toBe(200)
    const refused = await signIn('kept-3')
    expect(refused.status).toBe(400)
    expect(refused.body.message).toBe('Failed to fetch OAuth2 token.')
    edited.providers = [{ ...edited.providers[0], clientSecret: SECRET }]
    expect((await patchUsers(edited)).status).toBe(200)
  })

  it('a whole collection sent back as read, one view edited, is no conflict and keeps it', async () => {
    const view = await s.api('GET', '/api/collections/users', { token: s.suToken })
    const body = structuredClone(view.body)
    body.oauth2.providers[0].displayName = 'Edited in the top-level view'
    const res = await s.api('PATCH', '/api/collections/users', { token: s.suToken, body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.authOptions.oauth2.providers[0].displayName).toBe(
      'Edited in the top-level view',
    )
    expect((await signIn('kept-4')).status).toBe(200)
  })
})

describe('GET /api/collections/meta/oauth2-providers', () => {
  it('is for superusers: 401 without a token, 403 for a user, the presets for a superuser', async () => {
    expect((await s.api('GET', '/api/collections/meta/oauth2-providers')).status).toBe(401)
    await s.api('POST', '/api/collections/users/records', {
      body: {
        email: 'plain@example.test',
        password: 'plain-password',
        passwordConfirm: 'plain-password',
      },
    })
    const user = await s.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'plain@example.test', password: 'plain-password' },
    })
    const forbidden = await s.api('GET', '/api/collections/meta/oauth2-providers', {
      token: user.body.token,
    })
    expect(forbidden.status).toBe(403)
    const pb = new PocketBase(s.url)
    pb.authStore.save(s.suToken)
    const list = (await pb.collections.getAllOAuth2Providers()) as any[]
    expect(list.map((p) => p.name)).toEqual([
      'google',
      'github',
      'gitlab',
      'microsoft',
      'apple',
      'discord',
      'facebook',
      'oidc',
      'oidc2',
      'oidc3',
    ])
    expect(list[0]).toMatchObject({
      displayName: 'Google',
      authURL: 'https://accounts.google.com/o/oauth2/v2/auth',
      pkce: true,
    })
  })
})

describe('discovery and MFA', () => {
  it('an issuer whose discovery fails: skipped by auth-methods, 400 at sign-in', async () => {
    const res = await patchUsers({
      enabled: true,
      providers: [provider(), provider({ name: 'oidc2', extra: { issuer: 'http://127.0.0.1:9' } })],
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const m = await s.api('GET', '/api/collections/users/auth-methods')
    expect(m.body.oauth2.providers.map((p: any) => p.name)).toEqual(['oidc'])
    const signIn = await s.api('POST', '/api/collections/users/auth-with-oauth2', {
      body: { provider: 'oidc2', code: 'x' },
    })
    expect(signIn.status).toBe(400)
    expect(signIn.body.message).toBe(
      'Failed to fetch the OpenID Connect discovery document of the provider.',
    )
  })

  it('oauth2 is one MFA factor: 401 {mfaId}, then the password completes it', async () => {
    const pw = 'mfa-user-password'
    const created = await s.api('POST', '/api/collections/users/records', {
      body: { email: 'mfa@example.test', password: pw, passwordConfirm: pw },
    })
    expect(created.status).toBe(200)
    // link the account first (signed in with its password)
    const login = await s.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'mfa@example.test', password: pw },
    })
    const m = await s.api('GET', '/api/collections/users/auth-methods')
    const p = m.body.oauth2.providers[0]
    const first = await authorize(p.authURL + encodeURIComponent(APP_REDIRECT), 'mfa', APP_REDIRECT)
    const linked = await s.api('POST', '/api/collections/users/auth-with-oauth2', {
      token: login.body.token,
      body: {
        provider: 'oidc',
        code: first.code,
        codeVerifier: p.codeVerifier,
        redirectURL: APP_REDIRECT,
      },
    })
    expect(linked.status).toBe(200)
    const mfa = await s.api('PATCH', '/api/collections/users', {
      token: s.suToken,
      body: { mfa: { enabled: true } },
    })
    expect(mfa.status, JSON.stringify(mfa.body)).toBe(200)
    try {
      const res = await signIn('mfa')
      expect(res.status).toBe(401)
      expect(res.body.mfaId).toMatch(/^\w{15}$/)
      const second = await s.api(
        'POST',
        `/api/collections/users/auth-with-password?mfaId=${res.body.mfaId}`,
        { body: { identity: 'mfa@example.test', password: pw } },
      )
      expect(second.status, JSON.stringify(second.body)).toBe(200)
      expect(second.body.record.id).toBe(created.body.id)
    } finally {
      await s.api('PATCH', '/api/collections/users', {
        token: s.suToken,
        body: { mfa: { enabled: false } },
      })
    }
  })
})

describe('with the oauth2 feature disabled', () => {
  it('has no OAuth2 routes and lists no providers', async () => {
    const off = await startServer({ disable: ['oauth2'] })
    try {
      const a = await off.api('POST', '/api/collections/users/auth-with-oauth2', {
        body: { provider: 'oidc', code: 'x' },
      })
      expect(a.status).toBe(404)
      expect((await off.api('GET', '/api/oauth2-redirect?state=x&code=y')).status).toBe(404)
      const m = await off.api('GET', '/api/collections/users/auth-methods')
      expect(m.body.oauth2).toEqual({ providers: [], enabled: false })
    } finally {
      await off.close()
    }
  })
})
