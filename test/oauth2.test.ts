/**
 * OAuth2 / OpenID Connect sign-in against a real provider (`oidc-provider` on loopback): the
 * manual code flow with PKCE, providers from discovery and from a preset with overridden URLs,
 * linking by verified email, a new user with createData and a downloaded avatar, and every
 * refusal leaving no record or link behind.
 */
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authorize, startHttp, startOidc, startTokenProxy, type TestOidc } from './helpers/oidc.js'
import { startServer, type TestServer } from './helpers/server.js'

const APP_REDIRECT = 'http://127.0.0.1:9/app/callback'

let s: TestServer
let oidc: TestOidc
let proxy: Awaited<ReturnType<typeof startTokenProxy>>
let files: Awaited<ReturnType<typeof startHttp>>
let avatarPng: Buffer
let avatarHits = 0

const providers = () => [
  // generic OIDC from its issuer's discovery document
  { name: 'oidc', clientId: 'client-a', clientSecret: 'secret-a', extra: { issuer: oidc.issuer } },
  // a preset with overridden URLs (the google preset, pointed at the local provider)
  {
    name: 'google',
    clientId: 'client-a',
    clientSecret: 'secret-a',
    authURL: `${oidc.issuer}/auth`,
    tokenURL: `${oidc.issuer}/token`,
    userInfoURL: `${oidc.issuer}/me`,
    extra: { scopes: ['openid', 'email', 'profile'] },
  },
  // OIDC with explicit URLs whose token endpoint passes through a rewriting proxy
  {
    name: 'oidc2',
    clientId: 'client-a',
    clientSecret: 'secret-a',
    authURL: `${oidc.issuer}/auth`,
    tokenURL: proxy.url,
    userInfoURL: `${oidc.issuer}/me`,
    extra: { issuer: oidc.issuer, jwksURL: `${oidc.issuer}/jwks` },
  },
  // the same, for a client whose codes and ID tokens live 1 s
  {
    name: 'oidc3',
    clientId: 'client-short',
    clientSecret: 'secret-short',
    authURL: `${oidc.issuer}/auth`,
    tokenURL: proxy.url,
    userInfoURL: `${oidc.issuer}/me`,
    extra: { issuer: oidc.issuer, jwksURL: `${oidc.issuer}/jwks` },
  },
]

beforeAll(async () => {
  s = await startServer()
  oidc = await startOidc(
    ['client-a', 'client-b', 'client-short'].map((id) => ({
      client_id: id,
      client_secret: id.replace('client', 'secret'),
      redirect_uris: [`${s.url}/api/oauth2-redirect`, APP_REDIRECT],
    })),
  )
  proxy = await startTokenProxy(`${oidc.issuer}/token`)
  avatarPng = await sharp({
    create: { width: 8, height: 8, channels: 3, background: { r: 200, g: 10, b: 10 } },
  })
    .png()
    .toBuffer()
  files = await startHttp((req, _body, res) => {
    if (req.url === '/avatar.png') {
      avatarHits++
      res.setHeader('content-type', 'image/png')
      res.end(avatarPng)
    } else if (req.url === '/avatar.txt') {
      res.setHeader('content-type', 'text/plain')
      res.end('not an image')
    } else {
      res.statusCode = 404
      res.end()
    }
  })
  const set = await s.api('PATCH', '/api/settings', {
    token: s.suToken,
    body: { oauth2: { allowPrivateNetworks: true } },
  })
  expect(set.status).toBe(200)
  const res = await s.api('PATCH', '/api/collections/users', {
    token: s.suToken,
    body: {
      oauth2: {
        enabled: true,
        providers: providers(),
        mappedFields: { name: 'name', avatarURL: 'avatar' },
      },
    },
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
})

afterAll(async () => {
  await s?.close()
  await proxy?.close()
  await files?.close()
  await oidc?.close()
})

async function counts(): Promise<{ users: number; links: number }> {
  const u = await s.api('GET', '/api/collections/users/records?perPage=1', { token: s.suToken })
  const l = await s.api('GET', '/api/collections/_externalAuths/records?perPage=1', {
    token: s.suToken,
  })
  return { users: u.body.totalItems as number, links: l.body.totalItems as number }
}

async function methods(collection = 'users') {
  const res = await s.api('GET', `/api/collections/${collection}/auth-methods`)
  expect(res.status).toBe(200)
  return res.body
}

/** auth-methods → the authorize URL with our redirect → code: what the app gets back. */
async function codeFor(provider: string, login: string, edit?: (u: URL) => void) {
  const p = (await methods()).oauth2.providers.find((x: any) => x.name === provider)
  const url = new URL(p.authURL + encodeURIComponent(APP_REDIRECT))
  edit?.(url)
  const { code, state } = await authorize(url.href, login, APP_REDIRECT)
  expect(state).toBe(p.state)
  return { code, codeVerifier: p.codeVerifier as string }
}

async function signIn(provider: string, login: string, extra: Record<string, unknown> = {}) {
  const { code, codeVerifier } = await codeFor(provider, login)
  return s.api('POST', '/api/collections/users/auth-with-oauth2', {
    body: { provider, code, codeVerifier, redirectURL: APP_REDIRECT, ...extra },
  })
}

describe('auth-methods', () => {
  it('lists the enabled providers with a fresh state and PKCE pair per call', async () => {
    const a = await methods()
    const b = await methods()
    expect(a.oauth2.enabled).toBe(true)
    expect(a.oauth2.providers.map((p: any) => p.name)).toEqual(['oidc', 'google', 'oidc2', 'oidc3'])
    const p = a.oauth2.providers[0]
    expect(p).toMatchObject({ displayName: 'OIDC', codeChallengeMethod: 'S256' })
    expect(p.state).toHaveLength(30)
    expect(p.codeVerifier).toHaveLength(43)
    expect(p.codeChallenge).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(p.authURL).toMatch(/&redirect_uri=$/)
    expect(p.authURL.startsWith(`${oidc.issuer}/auth?`)).toBe(true)
    const q = new URL(p.authURL).searchParams
    expect(q.get('client_id')).toBe('client-a')
    expect(q.get('code_challenge')).toBe(p.codeChallenge)
    expect(q.get('state')).toBe(p.state)
    expect(q.get('scope')).toBe('openid profile email')
    expect(b.oauth2.providers[0].state).not.toBe(p.state)
    expect(b.oauth2.providers[0].codeVerifier).not.toBe(p.codeVerifier)
    expect(a.authProviders.map((x: any) => x.name)).toEqual(['oidc', 'google', 'oidc2', 'oidc3'])
    expect(a.authProviders[0].authUrl).toBe(a.authProviders[0].authURL)
  })
})

describe('the manual code flow with PKCE', () => {
  it('creates a new user with createData, the mapped name and the downloaded avatar', async () => {
    oidc.accounts.set('alice', { name: 'Alice Liddell', picture: `${files.url}/avatar.png` })
    const before = await counts()
    const res = await signIn('oidc', 'alice', { createData: { name: 'ignored?' } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.token).toEqual(expect.any(String))
    expect(res.body.record).toMatchObject({
      email: 'alice@example.test',
      verified: true,
      name: 'ignored?', // createData wins over the mapped field, as in PocketBase
    })
    expect(res.body.meta).toMatchObject({
      id: 'alice',
      name: 'Alice Liddell',
      email: 'alice@example.test',
      isNew: true,
      avatarURL: `${files.url}/avatar.png`,
      avatarUrl: `${files.url}/avatar.png`,
      accessToken: expect.any(String),
      rawUser: { sub: 'alice', email: 'alice@example.test' },
    })
    expect(Object.keys(res.body.meta)).toEqual([...Object.keys(res.body.meta)].sort())
    expect(res.body.meta.expiry).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/)
    // the avatar is a stored file of the record, byte for byte
    const avatar = res.body.record.avatar as string
    expect(avatar).toMatch(/^avatar_\w+\.png$/)
    expect(avatarHits).toBe(1)
    const ft = await s.api('POST', '/api/files/token', { token: res.body.token })
    const file = await fetch(
      `${s.url}/api/files/users/${res.body.record.id}/${avatar}?token=${ft.body.token}`,
    )
    expect(file.status).toBe(200)
    expect(Buffer.from(await file.arrayBuffer()).equals(avatarPng)).toBe(true)
    const meta = await sharp(Buffer.from(avatarPng)).metadata()
    expect(meta.format).toBe('png')
    expect(await counts()).toEqual({ users: before.users + 1, links: before.links + 1 })
    // the link row
    const links = await s.api(
      'GET',
      `/api/collections/_externalAuths/records?filter=${encodeURIComponent(`recordRef='${res.body.record.id}'`)}`,
      { token: s.suToken },
    )
    expect(links.body.items).toMatchObject([{ provider: 'oidc', providerId: 'alice' }])
    // signing in again reuses the link: same record, isNew false, nothing added
    const again = await signIn('oidc', 'alice')
    expect(again.status).toBe(200)
    expect(again.body.record.id).toBe(res.body.record.id)
    expect(again.body.meta.isNew).toBe(false)
    expect(await counts()).toEqual({ users: before.users + 1, links: before.links + 1 })
  })

  it('signs in without the avatar when its download fails or the file field refuses it', async () => {
    const keys = async () => (await s.storedKeys('')).length
    const before = await keys()
    for (const [login, picture] of [
      ['no-avatar-404', `${files.url}/missing.png`],
      ['no-avatar-type', `${files.url}/avatar.txt`],
      ['no-avatar-dns', 'http://no-such-host.invalid/a.png'],
    ] as const) {
      oidc.accounts.set(login, { picture })
      const res = await signIn('oidc', login)
      expect(res.status, `${login}: ${JSON.stringify(res.body)}`).toBe(200)
      expect(res.body.record.avatar).toBe('')
      expect(res.body.meta.avatarURL).toBe(picture)
    }
    expect(await keys()).toBe(before)
  })

  it('downloads avatars through the SSRF guard: a loopback URL is refused by default', async () => {
    const off = await s.api('PATCH', '/api/settings', {
      token: s.suToken,
      body: { oauth2: { allowPrivateNetworks: false } },
    })
    expect(off.status).toBe(200)
    try {
      const hits = avatarHits
      oidc.accounts.set('guarded', { picture: `${files.url}/avatar.png` })
      const res = await signIn('oidc', 'guarded')
      expect(res.status).toBe(200)
      expect(res.body.record.avatar).toBe('')
      expect(avatarHits).toBe(hits)
    } finally {
      await s.api('PATCH', '/api/settings', {
        token: s.suToken,
        body: { oauth2: { allowPrivateNetworks: true } },
      })
    }
  })

  it('signs in through a preset (google) with overridden URLs, mapping the name', async () => {
    oidc.accounts.set('gwen', { name: 'Gwen Stacy' })
    const res = await signIn('google', 'gwen')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.record).toMatchObject({ email: 'gwen@example.test', name: 'Gwen Stacy' })
    expect(res.body.meta).toMatchObject({ id: 'gwen', isNew: true })
  })

  it('links an existing user by the verified email, taking over an unverified one', async () => {
    const created = await s.api('POST', '/api/collections/users/records', {
      body: {
        email: 'bob@example.test',
        password: 'bobs-password',
        passwordConfirm: 'bobs-password',
      },
    })
    expect(created.status).toBe(200)
    expect(created.body.verified).toBe(false)
    const before = await counts()
    const res = await signIn('oidc', 'bob')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.record.id).toBe(created.body.id)
    expect(res.body.record.verified).toBe(true)
    expect(res.body.meta.isNew).toBe(false)
    expect(await counts()).toEqual({ users: before.users, links: before.links + 1 })
    // pre-hijacking protection: the password set before the email was proven no longer works
    const pw = await s.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'bob@example.test', password: 'bobs-password' },
    })
    expect(pw.status).toBe(400)
  })

  it('a deleted user takes its links with it', async () => {
    const res = await signIn('oidc', 'short-lived')
    expect(res.status).toBe(200)
    const before = await counts()
    const del = await s.api('DELETE', `/api/collections/users/records/${res.body.record.id}`, {
      token: s.suToken,
    })
    expect(del.status).toBe(204)
    expect(await counts()).toEqual({ users: before.users - 1, links: before.links - 1 })
  })

  it('a link left without its record does not block a new sign-up', async () => {
    const users = await s.api('GET', '/api/collections/users', { token: s.suToken })
    const stale = await s.api('POST', '/api/collections/_externalAuths/records', {
      token: s.suToken,
      body: {
        collectionRef: users.body.id,
        recordRef: 'gone00000000000',
        provider: 'oidc',
        providerId: 'stale',
      },
    })
    expect(stale.status, JSON.stringify(stale.body)).toBe(200)
    const before = await counts()
    const res = await signIn('oidc', 'stale')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.meta.isNew).toBe(true)
    expect(await counts()).toEqual({ users: before.users + 1, links: before.links })
  })

  it('links the provider to the signed-in user (account linking)', async () => {
    const created = await s.api('POST', '/api/collections/users/records', {
      body: {
        email: 'carol@elsewhere.test',
        password: 'carols-password',
        passwordConfirm: 'carols-password',
      },
    })
    const login = await s.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'carol@elsewhere.test', password: 'carols-password' },
    })
    const { code, codeVerifier } = await codeFor('oidc', 'carol-at-idp')
    const res = await s.api('POST', '/api/collections/users/auth-with-oauth2', {
      token: login.body.token,
      body: { provider: 'oidc', code, codeVerifier, redirectUrl: APP_REDIRECT },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.record.id).toBe(created.body.id)
    expect(res.body.record.email).toBe('carol@elsewhere.test')
    // a second account of the same provider cannot be linked to the same record
    const before = await counts()
    const other = await codeFor('oidc', 'carol-second')
    const second = await s.api('POST', '/api/collections/users/auth-with-oauth2', {
      token: login.body.token,
      body: { provider: 'oidc', ...other, redirectURL: APP_REDIRECT },
    })
    expect(second.status).toBe(400)
    expect(second.body.message).toBe('Failed to authenticate.')
    expect(await counts()).toEqual(before)
    // the password still works: a signed-in user linking is no take-over
    const pw = await s.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'carol@elsewhere.test', password: 'carols-password' },
    })
    expect(pw.status).toBe(200)
  })
})

describe('refusals leave no record and no link behind', () => {
  async function refused(
    body: Record<string, unknown>,
    status: number,
    message: string,
    collection = 'users',
  ) {
    const before = await counts()
    const res = await s.api('POST', `/api/collections/${collection}/auth-with-oauth2`, { body })
    expect(res.status, JSON.stringify(res.body)).toBe(status)
    expect(res.body.message).toBe(message)
    expect(await counts()).toEqual(before)
    return res.body
  }

  it('an unknown provider (field error) and a missing code', async () => {
    const body = await refused(
      { provider: 'nope', code: 'x' },
      400,
      'An error occurred while validating the submitted data.',
    )
    expect(body.data.provider).toMatchObject({
      code: 'validation_invalid_provider',
      message: 'Provider with name nope is missing or is not enabled.',
    })
    const missing = await refused(
      { provider: 'oidc' },
      400,
      'An error occurred while validating the submitted data.',
    )
    expect(missing.data.code.code).toBe('validation_required')
  })

  it('a used code, and a code that never was', async () => {
    const { code, codeVerifier } = await codeFor('oidc', 'dave')
    const ok = await s.api('POST', '/api/collections/users/auth-with-oauth2', {
      body: { provider: 'oidc', code, codeVerifier, redirectURL: APP_REDIRECT },
    })
    expect(ok.status).toBe(200)
    await refused(
      { provider: 'oidc', code, codeVerifier, redirectURL: APP_REDIRECT },
      400,
      'Failed to fetch OAuth2 token.',
    )
    await refused(
      { provider: 'oidc', code: 'made-up', codeVerifier, redirectURL: APP_REDIRECT },
      400,
      'Failed to fetch OAuth2 token.',
    )
  })

  it('an expired code (the same client signs in when the code is used at once)', async () => {
    const fresh = await signIn('oidc3', 'kate-fresh')
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200)
    const { code, codeVerifier } = await codeFor('oidc3', 'kate')
    await new Promise((r) => setTimeout(r, 1500))
    await refused(
      { provider: 'oidc3', code, codeVerifier, redirectURL: APP_REDIRECT },
      400,
      'Failed to fetch OAuth2 token.',
    )
  })

  it('an expired ID token', async () => {
    const { code, codeVerifier } = await codeFor('oidc3', 'leo')
    // the token answer reaches us after the 1 s ID token has expired
    proxy.response = () => new Promise((r) => setTimeout(r, 1500))
    try {
      await refused(
        { provider: 'oidc3', code, codeVerifier, redirectURL: APP_REDIRECT },
        400,
        'Failed to verify the OAuth2 ID token: it has expired.',
      )
    } finally {
      proxy.response = null
    }
  })

  it('a wrong PKCE verifier', async () => {
    const { code } = await codeFor('oidc', 'erin')
    await refused(
      { provider: 'oidc', code, codeVerifier: 'x'.repeat(43), redirectURL: APP_REDIRECT },
      400,
      'Failed to fetch OAuth2 token.',
    )
  })

  it('an ID token issued for another client (wrong audience)', async () => {
    // The code is obtained for client-b and the proxy exchanges it with client-b's credentials:
    // a genuine, well-signed ID token whose audience is not our clientId.
    const { code, codeVerifier } = await codeFor('oidc2', 'frank', (u) =>
      u.searchParams.set('client_id', 'client-b'),
    )
    proxy.request = (form) => {
      form.set('client_id', 'client-b')
      form.set('client_secret', 'secret-b')
    }
    try {
      await refused(
        { provider: 'oidc2', code, codeVerifier, redirectURL: APP_REDIRECT },
        400,
        'Failed to verify the OAuth2 ID token: it was issued for another client.',
      )
    } finally {
      proxy.request = null
    }
  })

  it('a tampered ID token (signature)', async () => {
    const { code, codeVerifier } = await codeFor('oidc2', 'grace')
    proxy.response = (json) => {
      const [h, p, sig] = String(json.id_token).split('.')
      const claims = JSON.parse(Buffer.from(p!, 'base64url').toString())
      claims.sub = 'someone-else'
      json.id_token = [h, Buffer.from(JSON.stringify(claims)).toString('base64url'), sig].join('.')
    }
    try {
      await refused(
        { provider: 'oidc2', code, codeVerifier, redirectURL: APP_REDIRECT },
        400,
        'Failed to verify the OAuth2 ID token: invalid signature.',
      )
    } finally {
      proxy.response = null
    }
  })

  it('the same provider through the proxy untouched signs in (the refusals are the checks)', async () => {
    const res = await signIn('oidc2', 'heidi')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.meta).toMatchObject({ id: 'heidi', isNew: true })
  })

  it('an email already taken, which the provider has not verified', async () => {
    const created = await s.api('POST', '/api/collections/users/records', {
      body: {
        email: 'ivan@example.test',
        password: 'ivans-password',
        passwordConfirm: 'ivans-password',
      },
    })
    expect(created.status).toBe(200)
    oidc.accounts.set('ivan', { email_verified: false })
    const { code, codeVerifier } = await codeFor('oidc', 'ivan')
    await refused(
      { provider: 'oidc', code, codeVerifier, redirectURL: APP_REDIRECT },
      400,
      'An account with this email already exists and the OAuth2 provider has not verified the email: sign in to that account first to link the provider.',
    )
    // the existing account is untouched: its password still works
    const pw = await s.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'ivan@example.test', password: 'ivans-password' },
    })
    expect(pw.status).toBe(200)
  })

  it('a createRule that refuses, with the rule seeing @request.context = "oauth2"', async () => {
    const rule = await s.api('PATCH', '/api/collections/users', {
      token: s.suToken,
      body: { createRule: '@request.context != "oauth2"' },
    })
    expect(rule.status).toBe(200)
    try {
      oidc.accounts.set('judy', { picture: `${files.url}/avatar.png` })
      const files0 = await s.storedKeys('')
      expect(files0.some((k) => k.endsWith('.png'))).toBe(true) // earlier avatars are listed
      const hits = avatarHits
      const { code, codeVerifier } = await codeFor('oidc', 'judy')
      const before = await counts()
      const res = await s.api('POST', '/api/collections/users/auth-with-oauth2', {
        body: { provider: 'oidc', code, codeVerifier, redirectURL: APP_REDIRECT },
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toBe('Failed to create record.')
      expect(await counts()).toEqual(before)
      // the avatar was downloaded, then discarded with the refused record: no stray file
      expect(avatarHits).toBe(hits + 1)
      expect(await s.storedKeys('')).toEqual(files0)
    } finally {
      await s.api('PATCH', '/api/collections/users', { token: s.suToken, body: { createRule: '' } })
    }
  })

  it('disabled OAuth2: 403', async () => {
    await refused(
      { provider: 'oidc', code: 'x' },
      403,
      'The collection is not configured to allow OAuth2 authentication.',
      '_superusers',
    )
  })
})
