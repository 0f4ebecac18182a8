/**
 * The FCM HTTP v1 backend against a local double of Google's token service and FCM that verifies
 * the RS256 assertion with the service account's public key and the bearer token it issued: a
 * real server whose `push.fcm` settings (set through PATCH /api/settings) point at the double,
 * and `fcmBackend(app).send(...)`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fcmBackend } from '../src/features/push/fcm.js'
import type { PushBackend } from '../src/features/push/backend.js'
import { serviceAccount, startFcmDouble, type FcmDouble } from './helpers/push-doubles.js'
import { startServer, type TestServer } from './helpers/server.js'

let srv: TestServer
let fcm: FcmDouble
let backend: PushBackend
let sa: ReturnType<typeof serviceAccount>

const settings = () => srv.server.app.settings.get().push
const msg = { title: 'Hello', body: 'World', data: { postId: 'p1', kind: 'comment' } }
const target = (token: string) => ({ id: `sub-${token}`, platform: 'android' as const, token })

async function configure(patch: Record<string, unknown>) {
  const res = await srv.api('PATCH', '/api/settings', {
    token: srv.suToken,
    body: { push: { fcm: patch } },
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res
}

beforeAll(async () => {
  fcm = await startFcmDouble()
  srv = await startServer()
  sa = serviceAccount(fcm.tokenUrl)
  fcm.trust(sa.clientEmail, sa.publicKey, sa.projectId)
  backend = fcmBackend(srv.server.app)
  await configure({ enabled: true, serviceAccountJson: sa.json, apiUrl: fcm.url })
})

afterAll(async () => {
  await backend?.close?.()
  await srv?.close()
  await fcm?.close()
})

describe('FCM backend', () => {
  it('is off by default and on once configured; the service account is never returned', async () => {
    expect(backend.enabled(settings())).toBe(true)
    const res = await srv.api('GET', '/api/settings', { token: srv.suToken })
    expect(res.body.push.fcm).toEqual({ enabled: true, apiUrl: fcm.url, tokenUrl: '' })
    expect(JSON.stringify(res.body)).not.toContain('PRIVATE KEY')
    const off = structuredClone(settings())
    off.fcm.enabled = false
    expect(backend.enabled(off)).toBe(false)
  })

  it('sends the message to /v1/projects/<project_id>/messages:send with the issued bearer', async () => {
    const before = fcm.sends.length
    expect(await backend.send(target('tok-a'), msg, settings())).toEqual({ status: 'sent' })
    expect(fcm.sends.slice(before)).toEqual([
      {
        projectId: 'demo-project',
        message: {
          token: 'tok-a',
          notification: { title: 'Hello', body: 'World' },
          data: { postId: 'p1', kind: 'comment' },
        },
      },
    ])
    expect(fcm.refused).toEqual([])
    expect(fcm.refusedTokens).toEqual([])
  })

  it('reuses one access token for many sends, concurrent ones included', async () => {
    const before = fcm.tokenRequests
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => backend.send(target(`many-${i}`), msg, settings())),
    )
    expect(outcomes.every((o) => o.status === 'sent')).toBe(true)
    expect(fcm.tokenRequests - before).toBe(0)
  })

  it('requests a new access token once the cached one is within the margin of expiry', async () => {
    const fresh = fcmBackend(srv.server.app)
    fcm.expiresIn = 61 // the backend renews 60 s early: this token is good for one second
    const before = fcm.tokenRequests
    expect(await fresh.send(target('exp-1'), msg, settings())).toEqual({ status: 'sent' })
    expect(await fresh.send(target('exp-2'), msg, settings())).toEqual({ status: 'sent' })
    expect(fcm.tokenRequests - before).toBe(1)
    await new Promise((r) => setTimeout(r, 1100))
    expect(await fresh.send(target('exp-3'), msg, settings())).toEqual({ status: 'sent' })
    expect(fcm.tokenRequests - before).toBe(2)
    fcm.expiresIn = 3599
    await fresh.close?.()
  })

  it('refreshes the access token once when FCM answers 401, then sends', async () => {
    fcm.revokeAll()
    const refused = fcm.refused.length
    const before = fcm.tokenRequests
    expect(await backend.send(target('after-revoke'), msg, settings())).toEqual({ status: 'sent' })
    expect(fcm.refused.slice(refused)).toEqual([
      '401 Request had invalid authentication credentials.',
    ])
    expect(fcm.tokenRequests - before).toBe(1)
  })

  it('reports an UNREGISTERED token gone', async () => {
    fcm.dead.add('dead-token')
    const out = await backend.send(target('dead-token'), msg, settings())
    expect(out).toEqual({
      status: 'gone',
      reason: 'FCM answered 404 UNREGISTERED: Requested entity was not found.',
    })
  })

  it('fails (without disabling) when the token service refuses the assertion', async () => {
    const other = serviceAccount(fcm.tokenUrl) // a key the double does not know
    const s = structuredClone(settings())
    s.fcm.serviceAccountJson = other.json
    const out = await fcmBackend(srv.server.app).send(target('tok-b'), msg, s)
    expect(out.status).toBe('failed')
    expect(out).toMatchObject({
      reason: expect.stringContaining('token endpoint answered 400: invalid_grant'),
    })
    // a signature made with another key under the trusted identity is refused as well
    const forged = JSON.parse(other.json)
    forged.client_email = sa.clientEmail
    s.fcm.serviceAccountJson = JSON.stringify(forged)
    const refused = fcm.refusedTokens.length
    const out2 = await fcmBackend(srv.server.app).send(target('tok-b'), msg, s)
    expect(out2.status).toBe('failed')
    expect(fcm.refusedTokens.slice(refused)[0]).toMatch(/^Invalid JWT Signature/)
  })

  it('a token for another project is refused by FCM and reported gone (SENDER_ID_MISMATCH)', async () => {
    const s = structuredClone(settings())
    const o = JSON.parse(s.fcm.serviceAccountJson)
    o.project_id = 'someone-else'
    s.fcm.serviceAccountJson = JSON.stringify(o)
    const out = await fcmBackend(srv.server.app).send(target('tok-c'), msg, s)
    expect(out).toMatchObject({
      status: 'gone',
      reason: expect.stringContaining('SENDER_ID_MISMATCH'),
    })
  })

  it('push.fcm.tokenUrl overrides the service account token_uri', async () => {
    const elsewhere = serviceAccount('https://oauth2.googleapis.com/token', 'demo-project')
    fcm.trust(elsewhere.clientEmail + '.x', elsewhere.publicKey, 'demo-project')
    const o = JSON.parse(elsewhere.json)
    o.client_email = elsewhere.clientEmail + '.x'
    await configure({ serviceAccountJson: JSON.stringify(o), tokenUrl: fcm.tokenUrl })
    const before = fcm.tokenRequests
    expect(await fcmBackend(srv.server.app).send(target('tok-d'), msg, settings())).toEqual({
      status: 'sent',
    })
    expect(fcm.tokenRequests - before).toBe(1)
    await configure({ serviceAccountJson: sa.json, tokenUrl: '' })
  })

  it('an unreachable FCM endpoint is a failure, not a hang', async () => {
    const s = structuredClone(settings())
    s.fcm.apiUrl = 'http://127.0.0.1:9'
    const out = await backend.send(target('tok-e'), msg, s)
    expect(out.status).toBe('failed')
  })

  it('refuses endpoint settings that are not URLs', async () => {
    const res = await srv.api('PATCH', '/api/settings', {
      token: srv.suToken,
      body: { push: { fcm: { apiUrl: 'not a url', tokenUrl: 'ftp:/x' } } },
    })
    expect(res.status).toBe(400)
    expect(res.body.data.push.fcm.apiUrl.code).toBe('validation_is_url')
    expect(res.body.data.push.fcm.tokenUrl.code).toBe('validation_is_url')
  })
})

describe('FCM through POST /api/push/send', () => {
  const url = '/api/collections/_push_subscriptions/records'
  const row = async (token: string) => {
    const r = await srv.api('POST', url, {
      token: srv.suToken,
      body: { platform: 'android', recordRef: 'user-e2e', token },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    return r.body.id as string
  }

  it('sends to android rows and disables the one FCM reports UNREGISTERED', async () => {
    await configure({ serviceAccountJson: sa.json, apiUrl: fcm.url, tokenUrl: '' })
    fcm.dead.add('e2e-dead')
    await row('e2e-live-1')
    await row('e2e-live-2')
    const deadId = await row('e2e-dead')
    const before = fcm.sends.length
    const res = await srv.api('POST', '/api/push/send', {
      token: srv.suToken,
      body: { title: 'T', body: 'B', data: { a: '1' }, recordRef: 'user-e2e', platform: 'android' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({ sent: 2, failed: 1 })
    const got = fcm.sends
      .slice(before)
      .map((s) => s.message.token)
      .sort()
    expect(got).toEqual(['e2e-dead', 'e2e-live-1', 'e2e-live-2'])
    expect(fcm.sends.at(-1)!.message.notification).toEqual({ title: 'T', body: 'B' })
    const dead = await srv.api('GET', `${url}/${deadId}`, { token: srv.suToken })
    expect(dead.body.enabled).toBe(false)
    // a disabled row is not sent to again
    const again = await srv.api('POST', '/api/push/send', {
      token: srv.suToken,
      body: { title: 'T', body: 'B', recordRef: 'user-e2e', platform: 'android' },
    })
    expect(again.body).toEqual({ sent: 2, failed: 0 })
  })

  it('with push.fcm off, android rows count as failed and nothing reaches FCM', async () => {
    await configure({ enabled: false })
    const before = fcm.sends.length
    const res = await srv.api('POST', '/api/push/send', {
      token: srv.suToken,
      body: { title: 'T', body: 'B', recordRef: 'user-e2e', platform: 'android' },
    })
    expect(res.body).toEqual({ sent: 0, failed: 2 })
    expect(fcm.sends.length).toBe(before)
    await configure({ enabled: true })
  })
})
