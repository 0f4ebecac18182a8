/**
 * Push core and Web Push, black-box: a real server, real HTTPS sends to a local Web Push service
 * that verifies the VAPID JWT and decrypts the RFC 8291 payload with the subscription's key.
 */
import webpush from 'web-push'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'
import { startWebPushDouble, type WebPushDouble } from './helpers/web-push-double.js'

const vapid = webpush.generateVAPIDKeys()
let t: TestServer
let push: WebPushDouble
const users: { id: string; token: string }[] = []

async function signUp(email: string): Promise<{ id: string; token: string }> {
  const password = 'password123'
  const c = await t.api('POST', '/api/collections/users/records', {
    body: { email, password, passwordConfirm: password },
  })
  expect(c.status).toBe(200)
  const a = await t.api('POST', '/api/collections/users/auth-with-password', {
    body: { identity: email, password },
  })
  return { id: c.body.id as string, token: a.body.token as string }
}

/** A browser subscription stored by its user through the records API. */
async function subscribeUser(user: { id: string; token: string }) {
  const s = push.subscribe()
  const r = await t.api('POST', '/api/collections/_push_subscriptions/records', {
    token: user.token,
    body: { platform: 'web', recordRef: user.id, endpoint: s.endpoint, keys: s.keys },
  })
  expect(r.status).toBe(200)
  expect(r.body.enabled).toBe(true)
  return { ...s, rowId: r.body.id as string }
}

const send = (body: unknown, token: string | null = t.suToken) =>
  t.api('POST', '/api/push/send', { body, token })

const since = (n: number) => push.received.slice(n)

beforeAll(async () => {
  push = await startWebPushDouble(() => vapid.publicKey)
  t = await startServer()
  const r = await t.api('PATCH', '/api/settings', {
    token: t.suToken,
    body: {
      push: {
        // The local push service double listens on loopback.
        allowPrivateNetworks: true,
        vapid: {
          enabled: true,
          publicKey: vapid.publicKey,
          privateKey: vapid.privateKey,
          subject: 'mailto:ops@example.com',
        },
      },
    },
  })
  expect(r.status).toBe(200)
  users.push(await signUp('a@example.com'), await signUp('b@example.com'))
})

afterAll(async () => {
  await t?.close()
  await push?.close()
})

describe('push settings and subscriptions', () => {
  it('never returns the VAPID private key', async () => {
    const r = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(r.status).toBe(200)
    expect(r.body.push.vapid.publicKey).toBe(vapid.publicKey)
    expect(JSON.stringify(r.body)).not.toContain(vapid.privateKey)
  })

  it('checks a row per platform and keeps rows to their owner', async () => {
    const [a, b] = users as [{ id: string; token: string }, { id: string; token: string }]
    const url = '/api/collections/_push_subscriptions/records'
    const noKeys = await t.api('POST', url, {
      token: a.token,
      body: { platform: 'web', recordRef: a.id, endpoint: `${push.origin}/push/x` },
    })
    expect(noKeys.status).toBe(400)
    expect(noKeys.body.data.keys.code).toBe('validation_required')
    const badKeys = await t.api('POST', url, {
      token: a.token,
      body: {
        platform: 'web',
        recordRef: a.id,
        endpoint: 'http://127.0.0.1/push/x',
        keys: { p256dh: 'AAAA', auth: 'short' },
      },
    })
    expect(badKeys.status).toBe(400)
    expect(badKeys.body.data.endpoint.code).toBe('validation_is_url')
    expect(badKeys.body.data.keys.p256dh.code).toBe('validation_invalid_value')
    expect(badKeys.body.data.keys.auth.code).toBe('validation_invalid_value')
    const noToken = await t.api('POST', url, {
      token: a.token,
      body: { platform: 'android', recordRef: a.id },
    })
    expect(noToken.status).toBe(400)
    expect(noToken.body.data.token.code).toBe('validation_required')
    const noPlatform = await t.api('POST', url, { token: a.token, body: { recordRef: a.id } })
    expect(noPlatform.status).toBe(400)
    expect(noPlatform.body.data.platform.code).toBe('validation_required')
    // someone else's recordRef: refused on create, and a row cannot be handed over on update
    const s = push.subscribe()
    const foreign = await t.api('POST', url, {
      token: a.token,
      body: { platform: 'web', recordRef: b.id, endpoint: s.endpoint, keys: s.keys },
    })
    expect(foreign.status).toBe(400)
    const own = await t.api('POST', url, {
      token: a.token,
      body: { platform: 'web', recordRef: a.id, endpoint: s.endpoint, keys: s.keys },
    })
    expect(own.status).toBe(200)
    const handOver = await t.api('PATCH', `${url}/${own.body.id}`, {
      token: a.token,
      body: { recordRef: b.id },
    })
    expect(handOver.status).toBe(404)
    const list = await t.api('GET', url, { token: b.token })
    expect(list.body.items.map((i: { id: string }) => i.id)).not.toContain(own.body.id)
    expect((await t.api('DELETE', `${url}/${own.body.id}`, { token: a.token })).status).toBe(204)
  })
})

describe('POST /api/push/send', () => {
  it('is for superusers only and refuses bad input with 400', async () => {
    expect((await send({ title: 'x', body: 'y' }, null)).status).toBe(401)
    expect((await send({ title: 'x', body: 'y' }, users[0]!.token)).status).toBe(403)
    const bad = await send({ title: '', body: 5, data: { n: 1 }, platform: 'pager' })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toBe('Failed to send the push notification.')
    expect(bad.body.data.title.code).toBe('validation_required')
    expect(bad.body.data.body.code).toBe('validation_invalid_value')
    expect(bad.body.data.data.n.code).toBe('validation_invalid_value')
    expect(bad.body.data.platform.code).toBe('validation_in_invalid')
    const big = await send({ title: 'x', body: 'é'.repeat(3000) })
    expect(big.status).toBe(400)
    expect(big.body.data.body.code).toBe('validation_length_too_long')
    const notJson = await t.api('POST', '/api/push/send', {
      token: t.suToken,
      raw: '{',
      headers: { 'content-type': 'application/json' },
    })
    expect(notJson.status).toBe(400)
  })

  it('sends to all, by recordRef and by platform; disabled rows skipped; gone rows disabled', async () => {
    const [a, b] = users as [{ id: string; token: string }, { id: string; token: string }]
    const a1 = await subscribeUser(a)
    const b1 = await subscribeUser(b)
    const b2 = await subscribeUser(b)
    const android = await t.api('POST', '/api/collections/_push_subscriptions/records', {
      token: a.token,
      body: { platform: 'android', recordRef: a.id, token: 'fcm-token-1' },
    })
    expect(android.status).toBe(200)

    // all: three web rows sent; the android row fails while FCM is not enabled
    let n = push.received.length
    const all = await send({ title: 'Hello', body: 'World', data: { k: 'v' } })
    expect(all.status).toBe(200)
    expect(all.body).toEqual({ sent: 3, failed: 1 })
    expect(
      since(n)
        .map((r) => r.id)
        .sort(),
    ).toEqual([a1.id, b1.id, b2.id].sort())
    for (const r of since(n))
      expect(r.payload).toEqual({ title: 'Hello', body: 'World', data: { k: 'v' } })

    // by platform: only the web rows
    n = push.received.length
    expect((await send({ title: 'W', body: '', platform: 'web' })).body).toEqual({
      sent: 3,
      failed: 0,
    })
    expect((await send({ title: 'A', body: '', platform: 'android' })).body).toEqual({
      sent: 0,
      failed: 1,
    })

    // by recordRef: only b's two rows
    n = push.received.length
    expect((await send({ title: 'To b', body: 'x', recordRef: b.id })).body).toEqual({
      sent: 2,
      failed: 0,
    })
    expect(
      since(n)
        .map((r) => r.id)
        .sort(),
    ).toEqual([b1.id, b2.id].sort())

    // a disabled row is skipped
    const off = await t.api('PATCH', `/api/collections/_push_subscriptions/records/${b2.rowId}`, {
      token: b.token,
      body: { enabled: false },
    })
    expect(off.status).toBe(200)
    n = push.received.length
    expect((await send({ title: 'To b', body: 'y', recordRef: b.id })).body).toEqual({
      sent: 1,
      failed: 0,
    })
    expect(since(n).map((r) => r.id)).toEqual([b1.id])

    // 410 Gone: counted failed, the row disabled, skipped from then on
    push.kill(b1.id)
    expect((await send({ title: 'To b', body: 'z', recordRef: b.id })).body).toEqual({
      sent: 0,
      failed: 1,
    })
    const row = await t.api('GET', `/api/collections/_push_subscriptions/records/${b1.rowId}`, {
      token: t.suToken,
    })
    expect(row.body.enabled).toBe(false)
    expect((await send({ title: 'To b', body: 'z', recordRef: b.id })).body).toEqual({
      sent: 0,
      failed: 0,
    })

    // the VAPID settings are read per send: disabled, nothing goes out
    await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { push: { vapid: { enabled: false } } },
    })
    n = push.received.length
    expect((await send({ title: 'off', body: '', platform: 'web' })).body).toEqual({
      sent: 0,
      failed: 1,
    })
    expect(push.received.length).toBe(n)
    await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { push: { vapid: { enabled: true } } },
    })
    expect(push.rejections).toEqual([])
    // clean up for the trigger tests
    for (const id of [a1.rowId, android.body.id as string])
      await t.api('DELETE', `/api/collections/_push_subscriptions/records/${id}`, {
        token: a.token,
      })
    for (const id of [b1.rowId, b2.rowId])
      await t.api('DELETE', `/api/collections/_push_subscriptions/records/${id}`, {
        token: b.token,
      })
  })
})

describe('push triggers', () => {
  it('sends templated messages after a create, targeted or broadcast, without slowing the request', async () => {
    const [a, b] = users as [{ id: string; token: string }, { id: string; token: string }]
    const col = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'messages',
        type: 'base',
        createRule: '',
        fields: [
          { name: 'text', type: 'text' },
          { name: 'to', type: 'text' },
          { name: 'secret', type: 'text', hidden: true },
        ],
      },
    })
    expect(col.status).toBe(200)
    const settings = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: {
        push: {
          triggers: [
            {
              enabled: true,
              collection: 'messages',
              events: 'create',
              title: 'New message {{ text }}',
              body: 'for {{to}} {{secret}}{{missing}}!',
              targetField: 'to',
            },
            {
              enabled: true,
              collection: 'messages',
              events: 'update, delete',
              title: 'Changed: {{text}}',
              body: '',
              targetField: '',
            },
          ],
        },
      },
    })
    expect(settings.status).toBe(200)
    const sa = await subscribeUser(a)
    const sb = await subscribeUser(b)
    push.delay(sb.id, 1500)

    // targeted: only b's subscription, and the create answers before the (slow) push is taken
    let n = push.received.length
    const started = Date.now()
    const created = await t.api('POST', '/api/collections/messages/records', {
      body: { text: 'hi', to: b.id, secret: 's3cret' },
    })
    const answeredAt = Date.now()
    expect(created.status).toBe(200)
    expect(answeredAt - started).toBeLessThan(1000)
    expect(push.received.length).toBe(n)
    await push.waitFor(n + 1)
    const got = since(n)
    expect(got.map((r) => r.id)).toEqual([sb.id])
    expect(got[0]!.payload).toEqual({ title: 'New message hi', body: `for ${b.id} !` })
    expect(got[0]!.at).toBeGreaterThan(answeredAt)

    // broadcast on update: every enabled subscription
    push.delay(sb.id, 0)
    n = push.received.length
    const upd = await t.api('PATCH', `/api/collections/messages/records/${created.body.id}`, {
      token: t.suToken,
      body: { text: 'edited' },
    })
    expect(upd.status).toBe(200)
    await push.waitFor(n + 2)
    expect(
      since(n)
        .map((r) => r.id)
        .sort(),
    ).toEqual([sa.id, sb.id].sort())
    for (const r of since(n)) expect(r.payload).toEqual({ title: 'Changed: edited', body: '' })

    // broadcast on delete, templated from the deleted record
    n = push.received.length
    const del = await t.api('DELETE', `/api/collections/messages/records/${created.body.id}`, {
      token: t.suToken,
    })
    expect(del.status).toBe(204)
    await push.waitFor(n + 2)
    for (const r of since(n)) expect(r.payload).toEqual({ title: 'Changed: edited', body: '' })

    // a target value no row has: nothing sent
    n = push.received.length
    await t.api('POST', '/api/collections/messages/records', { body: { text: 'x', to: 'nobody' } })
    await new Promise((r) => setTimeout(r, 300))
    expect(push.received.length).toBe(n)
    expect(push.rejections).toEqual([])
  })

  it("leaves another instance's change to that instance (a remote event pushes nothing)", async () => {
    const b = users[1]!
    const app = t.server.app
    const messages = app.collections.get('messages')
    const n = push.received.length
    // What the cluster bridge publishes for a create made on another instance: it pushes there.
    app.events.publish({
      kind: 'record',
      action: 'create',
      collection: messages,
      record: { id: 'remote000000000', text: 'remote', to: b.id, secret: '' },
      remote: true,
    })
    const local = await t.api('POST', '/api/collections/messages/records', {
      body: { text: 'local', to: b.id },
    })
    expect(local.status).toBe(200)
    await push.waitFor(n + 1)
    // The queue is in event order: a push of the remote event would have come first.
    expect(since(n).map((r) => r.payload)).toEqual([
      { title: 'New message local', body: `for ${b.id} !` },
    ])
  })
})

describe('push feature off', () => {
  it('has no /api/push/send with disable: ["push"]', async () => {
    const off = await startServer({ disable: ['push'] })
    try {
      const r = await off.api('POST', '/api/push/send', {
        token: off.suToken,
        body: { title: 'x', body: 'y' },
      })
      expect(r.status).toBe(404)
    } finally {
      await off.close()
    }
  })
})
