/**
 * Security issue #32, points 8 and 12, black-box against a real server: `_push_subscriptions`
 * rules compare the owner's collection too (a record of another auth collection with the same
 * id is someone else), and Web Push endpoints go through the webhooks' SSRF guard, when stored
 * (400) and again when sent to (DNS included).
 */
import webpush from 'web-push'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'
import { startWebPushDouble, type WebPushDouble } from './helpers/web-push-double.js'

const vapid = webpush.generateVAPIDKeys()
const SAME_ID = 'sameid000000001'
const URL_SUBS = '/api/collections/_push_subscriptions/records'
let t: TestServer
let push: WebPushDouble
let user: { id: string; token: string; collectionId: string }
let member: { id: string; token: string; collectionId: string }

async function signUp(collection: string, email: string) {
  const password = 'password123'
  const c = await t.api('POST', `/api/collections/${collection}/records`, {
    body: { id: SAME_ID, email, password, passwordConfirm: password },
  })
  expect(c.status, JSON.stringify(c.body)).toBe(200)
  const a = await t.api('POST', `/api/collections/${collection}/auth-with-password`, {
    body: { identity: email, password },
  })
  expect(a.status).toBe(200)
  return {
    id: c.body.id as string,
    token: a.body.token as string,
    collectionId: c.body.collectionId as string,
  }
}

const setPush = (patch: Record<string, unknown>) =>
  t.api('PATCH', '/api/settings', { token: t.suToken, body: { push: patch } })

beforeAll(async () => {
  push = await startWebPushDouble(() => vapid.publicKey)
  t = await startServer()
  const r = await setPush({
    vapid: {
      enabled: true,
      publicKey: vapid.publicKey,
      privateKey: vapid.privateKey,
      subject: 'mailto:ops@example.com',
    },
  })
  expect(r.status).toBe(200)
  const members = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: { name: 'members', type: 'auth', createRule: '', fields: [] },
  })
  expect(members.status).toBe(200)
  user = await signUp('users', 'u@example.com')
  member = await signUp('members', 'm@example.com')
  expect(member.id).toBe(user.id)
})

afterAll(async () => {
  await t?.close()
  await push?.close()
})

describe('_push_subscriptions rules compare the collection (#32.8)', () => {
  it("keeps a user's rows from a record of another auth collection with the same id", async () => {
    await setPush({ allowPrivateNetworks: true })
    const s = push.subscribe()
    const own = await t.api('POST', URL_SUBS, {
      token: user.token,
      body: { platform: 'web', recordRef: user.id, endpoint: s.endpoint, keys: s.keys },
    })
    expect(own.status).toBe(200)
    expect(own.body.collectionRef).toBe(user.collectionId)

    const list = await t.api('GET', URL_SUBS, { token: member.token })
    expect(list.status).toBe(200)
    expect(list.body.items).toEqual([])
    expect((await t.api('GET', `${URL_SUBS}/${own.body.id}`, { token: member.token })).status).toBe(
      404,
    )
    const patch = await t.api('PATCH', `${URL_SUBS}/${own.body.id}`, {
      token: member.token,
      body: { enabled: false },
    })
    expect(patch.status).toBe(404)
    const del = await t.api('DELETE', `${URL_SUBS}/${own.body.id}`, { token: member.token })
    expect(del.status).toBe(404)
    // Still there, still enabled, for its owner.
    const mine = await t.api('GET', `${URL_SUBS}/${own.body.id}`, { token: user.token })
    expect(mine.status).toBe(200)
    expect(mine.body.enabled).toBe(true)

    // The other record cannot add a row in the user's name either.
    const s2 = push.subscribe()
    const forged = await t.api('POST', URL_SUBS, {
      token: member.token,
      body: {
        platform: 'web',
        recordRef: user.id,
        collectionRef: user.collectionId,
        endpoint: s2.endpoint,
        keys: s2.keys,
      },
    })
    expect(forged.status).toBe(400)
    // A row of its own is its own, and the user does not see it.
    const theirs = await t.api('POST', URL_SUBS, {
      token: member.token,
      body: { platform: 'web', recordRef: member.id, endpoint: s2.endpoint, keys: s2.keys },
    })
    expect(theirs.status).toBe(200)
    expect(theirs.body.collectionRef).toBe(member.collectionId)
    const userList = await t.api('GET', URL_SUBS, { token: user.token })
    expect(userList.body.items.map((i: { id: string }) => i.id)).toEqual([own.body.id])
    // The row cannot be moved to the user's collection.
    const move = await t.api('PATCH', `${URL_SUBS}/${theirs.body.id}`, {
      token: member.token,
      body: { collectionRef: user.collectionId },
    })
    expect(move.status).toBe(404)

    // A trigger targeting a relation to users reaches the user's row only.
    const notes = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'notes',
        type: 'base',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'owner', type: 'relation', collectionId: user.collectionId, maxSelect: 1 },
        ],
      },
    })
    expect(notes.status).toBe(200)
    await setPush({
      triggers: [
        {
          enabled: true,
          collection: 'notes',
          events: 'create',
          title: 'Note {{title}}',
          body: 'for you',
          targetField: 'owner',
        },
      ],
    })
    const before = push.received.length
    const note = await t.api('POST', '/api/collections/notes/records', {
      token: t.suToken,
      body: { title: 'n1', owner: user.id },
    })
    expect(note.status).toBe(200)
    await push.waitFor(before + 1)
    // Give a wrongly targeted second send the time to arrive.
    await new Promise((r) => setTimeout(r, 500))
    const got = push.received.slice(before)
    expect(got.map((g) => g.id)).toEqual([s.id])
    // A superuser send names the collection the same way.
    const sent = await t.api('POST', '/api/push/send', {
      token: t.suToken,
      body: { title: 'Hi', body: 'x', recordRef: user.id, collectionRef: 'users' },
    })
    expect(sent.body).toEqual({ sent: 1, failed: 0 })
    const bad = await t.api('POST', '/api/push/send', {
      token: t.suToken,
      body: { title: 'Hi', body: 'x', recordRef: user.id, collectionRef: 'notes' },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.data.collectionRef.code).toBe('validation_missing_collection')
    await setPush({ triggers: [] })
    for (const id of [own.body.id, theirs.body.id])
      await t.api('DELETE', `${URL_SUBS}/${id}`, { token: t.suToken })
  })

  it('gives every system collection owner rules that name the collection', async () => {
    const r = await t.api('GET', '/api/collections?perPage=200', { token: t.suToken })
    for (const c of r.body.items as Record<string, unknown>[]) {
      if (!c.system) continue
      for (const key of ['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule']) {
        const rule = c[key]
        if (typeof rule !== 'string' || !/recordRef\s*\??=\s*@request\.auth\.id/.test(rule))
          continue
        expect(rule, `${String(c.name)}.${key}`).toMatch(
          /collectionRef\s*\??=\s*@request\.auth\.collectionId/,
        )
      }
    }
  })
})

describe('Web Push endpoints are SSRF-guarded (#32.12)', () => {
  it('refuses private, loopback and metadata endpoints when stored, with a 400', async () => {
    await setPush({ allowPrivateNetworks: false })
    const port = new URL(push.origin).port
    const refused = [
      `https://127.0.0.1:${port}/push/x`,
      `https://[::ffff:127.0.0.1]:${port}/push/x`,
      `https://localhost:${port}/push/x`,
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/push',
      'https://192.168.1.1/push',
      'https://172.16.0.1/push',
      'https://[::1]/push',
      'https://0x7f000001/push',
      'https://2130706433/push',
      'https://127.1/push',
      'https://0177.0.0.1/push',
      'https://[fd00::1]/push',
      'https://100.64.0.1/push',
      'https://0.0.0.0/push',
      'https://[fe80::1]/push',
      'https://push.localhost/push',
      'https://LOCALHOST./push',
      'https://[::ffff:a9fe:a9fe]/latest',
    ]
    const s = push.subscribe()
    for (const endpoint of refused) {
      const r = await t.api('POST', URL_SUBS, {
        token: user.token,
        body: { platform: 'web', recordRef: user.id, endpoint, keys: s.keys },
      })
      expect(r.status, endpoint).toBe(400)
      expect(r.body.data.endpoint.code, endpoint).toBe('validation_invalid_value')
      expect(r.body.data.endpoint.message, endpoint).toMatch(/private networks are not allowed/)
    }
    // A public endpoint is taken.
    const ok = await t.api('POST', URL_SUBS, {
      token: user.token,
      body: {
        platform: 'web',
        recordRef: user.id,
        endpoint: 'https://push.example.com/x',
        keys: s.keys,
      },
    })
    expect(ok.status).toBe(200)
    await t.api('DELETE', `${URL_SUBS}/${ok.body.id}`, { token: t.suToken })
  })

  it('checks the endpoint again at send time, DNS included', async () => {
    // Rows stored while private networks were allowed: a literal and a name resolving to loopback.
    await setPush({ allowPrivateNetworks: true })
    const a = push.subscribe()
    const b = push.subscribe()
    const port = new URL(push.origin).port
    const rows: string[] = []
    for (const [endpoint, keys] of [
      [a.endpoint, a.keys],
      [b.endpoint.replace('127.0.0.1', 'localhost'), b.keys],
    ] as const) {
      expect(endpoint).toContain(`:${port}/`)
      const r = await t.api('POST', URL_SUBS, {
        token: user.token,
        body: { platform: 'web', recordRef: user.id, endpoint, keys },
      })
      expect(r.status).toBe(200)
      rows.push(r.body.id as string)
    }
    // Allowed: both are delivered (the double answers on loopback, "localhost" resolves there).
    const before = push.received.length
    const allowed = await t.api('POST', '/api/push/send', {
      token: t.suToken,
      body: { title: 'Allowed', body: 'x', recordRef: user.id },
    })
    expect(allowed.body.sent + allowed.body.failed).toBe(2)
    await setPush({ allowPrivateNetworks: false })
    const afterAllowed = push.received.length
    const refused = await t.api('POST', '/api/push/send', {
      token: t.suToken,
      body: { title: 'Refused', body: 'x', recordRef: user.id },
    })
    expect(refused.status).toBe(200)
    expect(refused.body).toEqual({ sent: 0, failed: 2 })
    expect(push.received.length).toBe(afterAllowed)
    expect(
      push.received
        .slice(before)
        .every((m) => (m.payload as { title?: string }).title !== 'Refused'),
    ).toBe(true)
    // The rows stay (a refusal is a failure, not a gone subscription), and can still be disabled.
    for (const id of rows) {
      const row = await t.api('GET', `${URL_SUBS}/${id}`, { token: t.suToken })
      expect(row.body.enabled).toBe(true)
      const off = await t.api('PATCH', `${URL_SUBS}/${id}`, {
        token: user.token,
        body: { enabled: false },
      })
      expect(off.status).toBe(200)
    }
  })

  it('adds the setting with a default of false and refuses a non-boolean', async () => {
    const s = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(typeof s.body.push.allowPrivateNetworks).toBe('boolean')
    const bad = await setPush({ allowPrivateNetworks: 'yes' })
    expect(bad.status).toBe(400)
    expect(bad.body.data.push.allowPrivateNetworks.code).toBeTruthy()
  })
})
