/**
 * The SDK's all-in-one OAuth2 flow end to end (`pocketbase` + `eventsource` against a real
 * `oidc-provider`): the urlCallback follows the authorize URL with a scripted browser that ends
 * at our `/api/oauth2-redirect`; and the redirect endpoint's refusals (bad state, a client not
 * subscribed to `@oauth2`, an `error`), GET and POST form_post.
 */
import { EventSource } from 'eventsource'
import PocketBase from 'pocketbase'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browse, startOidc, type TestOidc } from './helpers/oidc.js'
import { startServer, type TestServer } from './helpers/server.js'

let s: TestServer
let oidc: TestOidc

beforeAll(async () => {
  ;(globalThis as { EventSource?: unknown }).EventSource = EventSource
  // No dashboard build: the redirect answers its short page (the dashboard's redirect: below).
  s = await startServer({ dashboardDir: join(tmpdir(), 'svcbase-no-dashboard') })
  oidc = await startOidc([
    {
      client_id: 'sdk-client',
      client_secret: 'sdk-secret',
      redirect_uris: [`${s.url}/api/oauth2-redirect`],
    },
  ])
  const res = await s.api('PATCH', '/api/collections/users', {
    token: s.suToken,
    body: {
      oauth2: {
        enabled: true,
        mappedFields: { name: 'name' },
        providers: [
          {
            name: 'oidc',
            displayName: 'Test SSO',
            clientId: 'sdk-client',
            clientSecret: 'sdk-secret',
            extra: { issuer: oidc.issuer },
          },
          // the apple preset (response_mode=form_post, ID token only) pointed at the provider
          {
            name: 'apple',
            clientId: 'sdk-client',
            clientSecret: 'sdk-secret',
            authURL: `${oidc.issuer}/auth`,
            tokenURL: `${oidc.issuer}/token`,
            extra: {
              issuer: oidc.issuer,
              jwksURL: `${oidc.issuer}/jwks`,
              scopes: ['openid', 'email'],
            },
          },
        ],
      },
    },
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
})

afterAll(async () => {
  await s?.close()
  await oidc?.close()
})

async function userCount(): Promise<number> {
  const u = await s.api('GET', '/api/collections/users/records?perPage=1', { token: s.suToken })
  return u.body.totalItems as number
}

describe('the SDK all-in-one flow', () => {
  it('pb.collection("users").authWithOAuth2({provider, urlCallback}) signs in', async () => {
    const pb = new PocketBase(s.url)
    pb.autoCancellation(false)
    let page: { status: number; body: string } | undefined
    const auth = await pb.collection('users').authWithOAuth2({
      provider: 'oidc',
      createData: { name: 'From SDK' },
      urlCallback: async (url) => {
        const u = new URL(url)
        // the SDK put its realtime client id as state and our redirect endpoint as redirect_uri
        expect(u.searchParams.get('redirect_uri')).toBe(`${s.url}/api/oauth2-redirect`)
        expect(u.searchParams.get('state')).toMatch(/^[A-Za-z0-9]{40}$/)
        const done = await browse(url, 'sdk-user')
        page = { status: done.response!.status, body: done.body ?? '' }
        expect(done.method).toBe('GET')
        expect(done.url.pathname).toBe('/api/oauth2-redirect')
      },
    })
    expect(page?.status).toBe(200)
    expect(page?.body).toContain('Authentication completed.')
    expect(auth.record).toMatchObject({ email: 'sdk-user@example.test', name: 'From SDK' })
    expect(auth.meta).toMatchObject({ id: 'sdk-user', isNew: true })
    expect(pb.authStore.isValid).toBe(true)
    expect(pb.authStore.record?.id).toBe(auth.record.id)
    // the token works for the user's own record
    const me = await pb.collection('users').getOne(auth.record.id)
    expect(me.email).toBe('sdk-user@example.test')
    await pb.realtime.unsubscribe()
  })
})

describe('the SDK flow with response_mode=form_post (the apple preset)', () => {
  it('the provider POSTs the code to /api/oauth2-redirect; the ID token (with nonce) is verified', async () => {
    const pb = new PocketBase(s.url)
    pb.autoCancellation(false)
    let page: { status: number; method: string; body: string } | undefined
    const auth = await pb.collection('users').authWithOAuth2({
      provider: 'apple',
      createData: { email: 'apple-sdk@example.test' },
      urlCallback: async (url) => {
        const u = new URL(url)
        expect(u.searchParams.get('response_mode')).toBe('form_post')
        expect(u.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/)
        const done = await browse(url, 'apple-user')
        expect(done.url.pathname).toBe('/api/oauth2-redirect')
        page = { status: done.response!.status, method: done.method!, body: done.body ?? '' }
      },
    })
    expect(page?.method).toBe('POST')
    expect(page?.status).toBe(200)
    expect(page?.body).toContain('Authentication completed.')
    expect(auth.meta).toMatchObject({ id: 'apple-user', isNew: true })
    expect(auth.meta?.rawUser).toMatchObject({ sub: 'apple-user', aud: 'sdk-client' })
    expect(auth.record.email).toBe('apple-sdk@example.test')
    await pb.realtime.unsubscribe()
  })
})

describe('/api/oauth2-redirect refusals', () => {
  /** Opens a realtime client and subscribes it to `topics`; returns its id and its messages. */
  async function realtimeClient(topics: string[]) {
    const messages: { event: string; data: string }[] = []
    const es = new EventSource(`${s.url}/api/realtime`)
    const clientId = await new Promise<string>((resolve, reject) => {
      es.addEventListener('PB_CONNECT', (e) => resolve(e.lastEventId))
      es.onerror = () => reject(new Error('realtime failed'))
    })
    es.addEventListener('@oauth2', (e) => messages.push({ event: '@oauth2', data: e.data }))
    const sub = await s.api('POST', '/api/realtime', { body: { clientId, subscriptions: topics } })
    expect(sub.status).toBe(204)
    return { clientId, messages, close: () => es.close() }
  }

  it('forwards the code once to the subscribed client (GET, then the same state again fails)', async () => {
    const c = await realtimeClient(['@oauth2'])
    try {
      const ok = await fetch(`${s.url}/api/oauth2-redirect?state=${c.clientId}&code=abc`)
      expect(ok.status).toBe(200)
      expect(ok.headers.get('content-type')).toMatch(/^text\/html/)
      await expect.poll(() => c.messages.length).toBe(1)
      expect(JSON.parse(c.messages[0]!.data)).toEqual({ state: c.clientId, code: 'abc' })
      // the subscription was dropped: a replay is refused and nothing more is sent
      const again = await fetch(`${s.url}/api/oauth2-redirect?state=${c.clientId}&code=abc`)
      expect(again.status).toBe(400)
      expect(await again.text()).toContain('Authentication failed.')
      expect(c.messages).toHaveLength(1)
    } finally {
      c.close()
    }
  })

  it('POST form_post forwards code and error', async () => {
    const c = await realtimeClient(['@oauth2'])
    try {
      const res = await fetch(`${s.url}/api/oauth2-redirect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ state: c.clientId, code: '', error: 'access_denied' }),
      })
      expect(res.status).toBe(400) // an error is a failure page, still forwarded to the client
      await expect.poll(() => c.messages.length).toBe(1)
      expect(JSON.parse(c.messages[0]!.data)).toEqual({
        state: c.clientId,
        code: '',
        error: 'access_denied',
      })
    } finally {
      c.close()
    }
  })

  it('a bad state, a missing state, and a client not subscribed to @oauth2', async () => {
    const c = await realtimeClient(['users/*'])
    try {
      for (const q of [
        `state=${'x'.repeat(40)}&code=abc`,
        'code=abc',
        `state=${c.clientId}&code=abc`,
      ]) {
        const res = await fetch(`${s.url}/api/oauth2-redirect?${q}`)
        expect(res.status, q).toBe(400)
        expect(await res.text()).toContain('Authentication failed.')
      }
      expect(c.messages).toHaveLength(0)
    } finally {
      c.close()
    }
  })

  it("keeps Apple's form_post user name for the exchange of its code", async () => {
    const c = await realtimeClient(['@oauth2'])
    try {
      const redirectURL = `${s.url}/api/oauth2-redirect`
      const m = await s.api('GET', '/api/collections/users/auth-methods')
      const p = m.body.oauth2.providers.find((x: any) => x.name === 'apple')
      const url = new URL(p.authURL + encodeURIComponent(redirectURL))
      url.searchParams.set('state', c.clientId)
      const stop = await browse(url.href, 'apple-named', (u) => u.href === redirectURL)
      const form = new URLSearchParams(stop.pendingBody)
      expect(form.get('state')).toBe(c.clientId)
      // what Apple adds on a first sign-in
      form.set('user', JSON.stringify({ name: { firstName: 'Ada', lastName: 'Lovelace' } }))
      const posted = await fetch(redirectURL, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      })
      expect(posted.status).toBe(200)
      await expect.poll(() => c.messages.length).toBe(1)
      const { code } = JSON.parse(c.messages[0]!.data)
      expect(code).toBe(form.get('code'))
      const res = await s.api('POST', '/api/collections/users/auth-with-oauth2', {
        body: {
          provider: 'apple',
          code,
          codeVerifier: p.codeVerifier,
          redirectURL,
          createData: { email: 'ada@example.test' },
        },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.meta.name).toBe('Ada Lovelace')
      expect(res.body.record.name).toBe('Ada Lovelace')
    } finally {
      c.close()
    }
  })

  it('a client subscribed from another IP is refused', async () => {
    const c = await realtimeClient(['@oauth2'])
    try {
      const res = await s.from(
        '10.1.2.3',
        'GET',
        `/api/oauth2-redirect?state=${c.clientId}&code=abc`,
      )
      expect(res.status).toBe(400)
      expect(c.messages).toHaveLength(0)
    } finally {
      c.close()
    }
  })

  it('the code the SDK flow forwarded is single-use: no extra user from a replayed sign-in', async () => {
    const before = await userCount()
    const res = await s.api('POST', '/api/collections/users/auth-with-oauth2', {
      body: { provider: 'oidc', code: 'abc', codeVerifier: 'x'.repeat(43) },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Failed to fetch OAuth2 token.')
    expect(await userCount()).toBe(before)
  })
})

describe('/api/oauth2-redirect with the dashboard built', () => {
  it("redirects to the dashboard's pages: 307 after a GET, 303 after a form POST", async () => {
    const ui = mkdtempSync(join(tmpdir(), 'svcbase-ui-'))
    mkdirSync(ui, { recursive: true })
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>dashboard</title>')
    const d = await startServer({ dashboardDir: ui })
    try {
      const es = new EventSource(`${d.url}/api/realtime`)
      const clientId = await new Promise<string>((resolve) =>
        es.addEventListener('PB_CONNECT', (e) => resolve(e.lastEventId)),
      )
      try {
        const sub = await d.api('POST', '/api/realtime', {
          body: { clientId, subscriptions: ['@oauth2'] },
        })
        expect(sub.status).toBe(204)
        const url = `${d.url}/api/oauth2-redirect`
        const ok = await fetch(`${url}?state=${clientId}&code=abc`, { redirect: 'manual' })
        expect(ok.status).toBe(307)
        expect(ok.headers.get('location')).toBe('../_/#/auth/oauth2-redirect-success')
        const again = await fetch(`${url}?state=${clientId}&code=abc`, { redirect: 'manual' })
        expect(again.status).toBe(307)
        expect(again.headers.get('location')).toBe('../_/#/auth/oauth2-redirect-failure')
        const posted = await fetch(url, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ state: 'nobody', code: 'abc' }),
        })
        expect(posted.status).toBe(303)
        expect(posted.headers.get('location')).toBe('../_/#/auth/oauth2-redirect-failure')
        // Followed, it lands on the dashboard.
        const followed = await fetch(`${url}?code=abc`)
        expect(followed.url).toBe(`${d.url}/_/`)
        expect(await followed.text()).toContain('<title>dashboard</title>')
      } finally {
        es.close()
      }
    } finally {
      await d.close()
      rmSync(ui, { recursive: true, force: true })
    }
  })
})
