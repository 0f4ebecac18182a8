/**
 * The APNs backend against an HTTP/2-only TLS double (self-signed certificate made with openssl,
 * trusted through the backend's test-only `ca` option) that verifies the ES256 provider token
 * against the `.p8` key's public key, the topic, push type, priority and payload: a real server
 * whose `push.apns` settings (set through PATCH /api/settings) point at the double, and
 * `apnsBackend(app).send(...)`.
 */
import http2 from 'node:http2'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apnsBackend, apnsOrigin } from '../src/features/push/apns.js'
import type { PushBackend } from '../src/features/push/backend.js'
import { apnsKey, startApnsDouble, type ApnsDouble } from './helpers/push-doubles.js'
import { startServer, type TestServer } from './helpers/server.js'

const KEY_ID = 'ABC123DEFG'
const TEAM_ID = 'TEAM456789'
const BUNDLE = 'com.example.app'
const hex = (n: number) => n.toString(16).padStart(64, '0')

let srv: TestServer
let apns: ApnsDouble
let backend: PushBackend
let key: ReturnType<typeof apnsKey>

const settings = () => srv.server.app.settings.get().push
const msg = { title: 'Hello', body: 'World', data: { postId: 'p1' } }
const target = (token: string) => ({ id: `sub-${token}`, platform: 'ios' as const, token })

beforeAll(async () => {
  key = apnsKey()
  apns = await startApnsDouble({
    publicKey: key.publicKey,
    keyId: KEY_ID,
    teamId: TEAM_ID,
    bundleId: BUNDLE,
  })
  srv = await startServer()
  backend = apnsBackend(srv.server.app, { ca: apns.cert })
  const res = await srv.api('PATCH', '/api/settings', {
    token: srv.suToken,
    body: {
      push: {
        apns: {
          enabled: true,
          key: key.p8,
          keyId: KEY_ID,
          teamId: TEAM_ID,
          bundleId: BUNDLE,
          apiUrl: apns.url,
        },
      },
    },
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
})

afterAll(async () => {
  await backend?.close?.()
  await srv?.close()
  await apns?.close()
})

describe('APNs backend', () => {
  it('is on once configured; the .p8 key is never returned', async () => {
    expect(backend.enabled(settings())).toBe(true)
    const res = await srv.api('GET', '/api/settings', { token: srv.suToken })
    expect(res.body.push.apns).toEqual({
      enabled: true,
      keyId: KEY_ID,
      teamId: TEAM_ID,
      bundleId: BUNDLE,
      production: false,
      apiUrl: apns.url,
    })
    expect(JSON.stringify(res.body)).not.toContain('PRIVATE KEY')
  })

  it('posts the alert over HTTP/2 with the provider token, topic, push type and priority', async () => {
    expect(await backend.send(target(hex(1)), msg, settings())).toEqual({ status: 'sent' })
    expect(apns.refused).toEqual([])
    const [d] = apns.delivered
    expect(d!.token).toBe(hex(1))
    expect(d!.payload).toEqual({
      aps: { alert: { title: 'Hello', body: 'World' }, sound: 'default' },
      postId: 'p1',
    })
    expect(d!.headers['apns-topic']).toBe(BUNDLE)
    expect(d!.headers['apns-push-type']).toBe('alert')
    expect(d!.headers['apns-priority']).toBe('10')
    const [header, claims] = d!.jwt
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()))
    expect(header).toEqual({ alg: 'ES256', kid: KEY_ID })
    expect(Object.keys(claims).sort()).toEqual(['iat', 'iss'])
    expect(claims.iss).toBe(TEAM_ID)
  })

  it('reuses one provider token and one connection for many sends, concurrent ones included', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => backend.send(target(hex(100 + i)), msg, settings())),
    )
    expect(outcomes.every((o) => o.status === 'sent')).toBe(true)
    expect(apns.jwts.size).toBe(1)
    expect(apns.connections).toBe(1)
    // a fresh backend whose first sends are concurrent mints one token and opens one connection
    const fresh = apnsBackend(srv.server.app, { ca: apns.cert })
    const [jwts, connections] = [apns.jwts.size, apns.connections]
    const first = await Promise.all(
      Array.from({ length: 30 }, (_, i) => fresh.send(target(hex(200 + i)), msg, settings())),
    )
    expect(first.every((o) => o.status === 'sent')).toBe(true)
    expect(apns.jwts.size - jwts).toBe(1)
    expect(apns.connections - connections).toBe(1)
    await fresh.close?.()
    expect(apns.refused).toEqual([])
  })

  it('reports a 410 Unregistered device gone', async () => {
    apns.dead.add(hex(2))
    expect(await backend.send(target(hex(2)), msg, settings())).toEqual({
      status: 'gone',
      reason: 'APNs answered 410 Unregistered',
    })
  })

  it('BadDeviceToken fails until the configuration has delivered once, then is gone', async () => {
    const fresh = apnsBackend(srv.server.app, { ca: apns.cert })
    apns.bad.add(hex(3))
    // a wrong environment answers BadDeviceToken for every device: not proof the device is dead
    expect(await fresh.send(target(hex(3)), msg, settings())).toEqual({
      status: 'failed',
      reason: 'APNs answered 400 BadDeviceToken',
    })
    expect(await fresh.send(target(hex(4)), msg, settings())).toEqual({ status: 'sent' })
    expect(await fresh.send(target(hex(3)), msg, settings())).toEqual({
      status: 'gone',
      reason: 'APNs answered 400 BadDeviceToken',
    })
    await fresh.close?.()
  })

  it('a token that is not hexadecimal is gone without a request', async () => {
    const before = apns.delivered.length + apns.refused.length
    expect(await backend.send(target('../../etc'), msg, settings())).toMatchObject({
      status: 'gone',
    })
    expect(apns.delivered.length + apns.refused.length).toBe(before)
  })

  it('ExpiredProviderToken mints a new provider token and retries once', async () => {
    const jwts = apns.jwts.size
    apns.expireNext = 1
    expect(await backend.send(target(hex(5)), msg, settings())).toEqual({ status: 'sent' })
    expect(apns.refused.at(-1)).toBe('403 ExpiredProviderToken')
    expect(apns.jwts.size).toBe(jwts + 1)
  })

  it('a wrong bundle ID or a key the double does not know fails without disabling', async () => {
    const s = structuredClone(settings())
    s.apns.bundleId = 'com.example.other'
    expect(await backend.send(target(hex(6)), msg, s)).toEqual({
      status: 'failed',
      reason: 'APNs answered 400 BadTopic',
    })
    const t = structuredClone(settings())
    t.apns.key = apnsKey().p8
    const other = apnsBackend(srv.server.app, { ca: apns.cert })
    expect(await other.send(target(hex(7)), msg, t)).toEqual({
      status: 'failed',
      reason: 'APNs answered 403 InvalidProviderToken',
    })
    await other.close?.()
  })

  it('an untrusted certificate is a failure (the CA option is what makes the double trusted)', async () => {
    const untrusting = apnsBackend(srv.server.app)
    const out = await untrusting.send(target(hex(8)), msg, settings())
    expect(out.status).toBe('failed')
    await untrusting.close?.()
  })

  it('the double speaks HTTP/2 only and checks the token signature itself', async () => {
    const res = await fetch(`${apns.url}/3/device/${hex(9)}`, { method: 'POST' }).catch(
      (e: Error) => e,
    )
    expect(res).toBeInstanceOf(Error) // HTTP/1.1 refused (and the certificate is not trusted)
    const s = http2.connect(apns.url, { ca: apns.cert })
    const status = await new Promise<number>((resolve, reject) => {
      const r = s.request({
        ':method': 'POST',
        ':path': `/3/device/${hex(9)}`,
        authorization: 'bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ.e30.AAAA',
        'apns-topic': BUNDLE,
      })
      r.on('response', (h) => resolve(Number(h[':status'])))
      r.on('error', reject)
      r.end('{"aps":{}}')
    })
    s.close()
    expect(status).toBe(403)
  })

  it('the host follows apns.production when apiUrl is empty; an unreachable host fails', async () => {
    const a = structuredClone(settings().apns)
    expect(apnsOrigin(a)).toBe(apns.url)
    a.apiUrl = ''
    expect(apnsOrigin(a)).toBe('https://api.sandbox.push.apple.com')
    a.production = true
    expect(apnsOrigin(a)).toBe('https://api.push.apple.com')
    const s = structuredClone(settings())
    s.apns.apiUrl = 'https://127.0.0.1:9'
    expect((await backend.send(target(hex(10)), msg, s)).status).toBe('failed')
  })

  it('refuses an apiUrl that is not a URL', async () => {
    const res = await srv.api('PATCH', '/api/settings', {
      token: srv.suToken,
      body: { push: { apns: { apiUrl: 'nope' } } },
    })
    expect(res.status).toBe(400)
    expect(res.body.data.push.apns.apiUrl.code).toBe('validation_is_url')
  })
})
