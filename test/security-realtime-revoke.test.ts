/**
 * Security issue #32 (point 7): a realtime stream bound with an API key ends within a second when
 * the key is deleted or expires, or its owner is deleted or changes password; before, it kept
 * receiving. A stream bound with a JWT still becomes a guest when its record's tokenKey rotates.
 * With the real SSE client of the other realtime tests (`eventsource`).
 */
import { EventSource } from 'eventsource'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** One SSE connection: the events it received by name, and when it first failed (ended). */
class Stream {
  readonly received: { name: string; data: any }[] = []
  clientId = ''
  /** `Date.now()` of the first `error` event (the stream ended), or 0. */
  endedAt = 0
  readonly es: EventSource

  constructor(url: string) {
    this.es = new EventSource(`${url}/api/realtime`)
    this.es.addEventListener('error', () => {
      this.endedAt ||= Date.now()
    })
    this.listen('SVC_CONNECT')
  }

  listen(name: string): void {
    this.es.addEventListener(name, (e) => {
      this.received.push({ name, data: JSON.parse(e.data) })
    })
  }

  async next(name: string, pred: (data: any) => boolean = () => true, ms = 3000) {
    const deadline = Date.now() + ms
    for (;;) {
      const hit = this.received.find((r) => r.name === name && pred(r.data))
      if (hit) return hit.data
      if (Date.now() > deadline) throw new Error(`no ${name} event`)
      await sleep(10)
    }
  }

  /** Resolves with the time the stream ended, or 0 when it was still open after `ms`. */
  async ended(ms: number): Promise<number> {
    const deadline = Date.now() + ms
    while (!this.endedAt && Date.now() < deadline) await sleep(10)
    return this.endedAt
  }
}

describe('security #32: realtime streams bound with a revoked credential', () => {
  let t: TestServer
  const streams: Stream[] = []
  let n = 0

  /** A fresh user with a password token. */
  const user = async () => {
    const email = `u${++n}@example.com`
    const created = await t.api('POST', '/api/collections/users/records', {
      body: { email, password: 'password123', passwordConfirm: 'password123' },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: email, password: 'password123' },
    })
    expect(login.status).toBe(200)
    return { id: created.body.id as string, token: login.body.token as string }
  }
  const mint = async (token: string, duration?: number) => {
    const res = await t.api('POST', '/api/api-keys', { token, body: { name: 'rt', duration } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body as { id: string; key: string; expires: string }
  }
  /**
   * Opens a stream, binds `credential` with a subscription to `members` (signed-in users only)
   * and `open` (anyone), and checks it receives a members event.
   */
  const bound = async (credential: string) => {
    const s = new Stream(t.url)
    streams.push(s)
    s.clientId = (await s.next('SVC_CONNECT')).clientId
    s.listen('members')
    s.listen('open')
    const sub = await t.api('POST', '/api/realtime', {
      token: credential,
      body: { clientId: s.clientId, subscriptions: ['members', 'open'] },
    })
    expect(sub.status, JSON.stringify(sub.body)).toBe(204)
    const label = await post('members')
    await s.next('members', (d) => d.record.label === label)
    return s
  }
  const post = async (collection: string) => {
    const label = `l${++n}`
    const res = await t.api('POST', `/api/collections/${collection}/records`, {
      token: t.suToken,
      body: { label },
    })
    expect(res.status).toBe(200)
    return label
  }
  /** Expects the stream to end within 1 s of `since`, its client id to be gone, and no more events. */
  const expectEnded = async (s: Stream, since: number) => {
    const at = await s.ended(1000 - (Date.now() - since))
    expect(at, 'the stream was still open 1 s later').toBeGreaterThan(0)
    expect(at - since).toBeLessThanOrEqual(1000)
    const again = await t.api('POST', '/api/realtime', {
      body: { clientId: s.clientId, subscriptions: ['open'] },
    })
    expect(again.status).toBe(404)
  }

  beforeAll(async () => {
    t = await startServer()
    for (const [name, listRule] of [
      ['members', '@request.auth.id != ""'],
      ['open', ''],
    ] as const) {
      const res = await t.api('POST', '/api/collections', {
        token: t.suToken,
        body: { name, listRule, viewRule: listRule, schema: [{ name: 'label', type: 'text' }] },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
    }
  })
  afterEach(() => {
    for (const s of streams.splice(0)) s.es.close()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('ends the stream when its API key is deleted, not when another key is', async () => {
    const u = await user()
    const key = await mint(u.token)
    const other = await mint(u.token)
    const s = await bound(key.key)
    const delOther = await t.api('DELETE', `/api/collections/_api_keys/records/${other.id}`, {
      token: u.token,
    })
    expect(delOther.status).toBe(204)
    const label = await post('members')
    await s.next('members', (d) => d.record.label === label)
    expect(s.endedAt).toBe(0)

    const del = await t.api('DELETE', `/api/collections/_api_keys/records/${key.id}`, {
      token: u.token,
    })
    expect(del.status).toBe(204)
    await expectEnded(s, Date.now())
  })

  it('ends the stream when its API key expires', async () => {
    const u = await user()
    const key = await mint(u.token, 2)
    const expiresAt = Date.parse(key.expires.replace(' ', 'T'))
    const s = await bound(key.key)
    expect(s.endedAt).toBe(0)
    const at = await s.ended(expiresAt - Date.now() + 1000)
    expect(at, 'the stream was still open 1 s after the expiry').toBeGreaterThan(0)
    expect(at).toBeGreaterThanOrEqual(expiresAt)
    expect(at - expiresAt).toBeLessThanOrEqual(1000)
  })

  it('ends the stream when its API key is given an expiry in the past', async () => {
    const u = await user()
    const key = await mint(u.token, 3600)
    const s = await bound(key.key)
    const past = await t.api('PATCH', `/api/collections/_api_keys/records/${key.id}`, {
      token: t.suToken,
      body: { expires: '2000-01-01 00:00:00.000Z' },
    })
    expect(past.status, JSON.stringify(past.body)).toBe(200)
    await expectEnded(s, Date.now())
  })

  it("ends the stream when the key's owner changes password, not on another update", async () => {
    const u = await user()
    const key = await mint(u.token)
    const s = await bound(key.key)
    const rename = await t.api('PATCH', `/api/collections/users/records/${u.id}`, {
      token: u.token,
      body: { name: 'renamed' },
    })
    expect(rename.status, JSON.stringify(rename.body)).toBe(200)
    const label = await post('members')
    await s.next('members', (d) => d.record.label === label)
    expect(s.endedAt).toBe(0)

    const change = await t.api('PATCH', `/api/collections/users/records/${u.id}`, {
      token: u.token,
      body: { oldPassword: 'password123', password: 'password456', passwordConfirm: 'password456' },
    })
    expect(change.status, JSON.stringify(change.body)).toBe(200)
    await expectEnded(s, Date.now())
  })

  it("ends the stream when the key's owner is deleted", async () => {
    const u = await user()
    const key = await mint(u.token)
    const s = await bound(key.key)
    const del = await t.api('DELETE', `/api/collections/users/records/${u.id}`, {
      token: t.suToken,
    })
    expect(del.status).toBe(204)
    await expectEnded(s, Date.now())
  })

  it("keeps a JWT-bound stream open as a guest when its record's tokenKey rotates", async () => {
    const u = await user()
    const s = await bound(u.token)
    const change = await t.api('PATCH', `/api/collections/users/records/${u.id}`, {
      token: u.token,
      body: { oldPassword: 'password123', password: 'password456', passwordConfirm: 'password456' },
    })
    expect(change.status, JSON.stringify(change.body)).toBe(200)
    // The auth change is applied before later events: an open event after it proves it came.
    const hidden = await post('members')
    const shown = await post('open')
    await s.next('open', (d) => d.record.label === shown)
    expect(s.received.some((r) => r.name === 'members' && r.data.record.label === hidden)).toBe(
      false,
    )
    expect(s.endedAt).toBe(0)
  })
})
