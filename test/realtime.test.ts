/**
 * Realtime black-box: a real SSE client (`eventsource`) against a running server. Each client
 * also subscribes to a public `marks` collection; creating a mark after the actions under test
 * and waiting for it proves every earlier event was already delivered (or withheld), since a
 * client's messages keep the order of the events.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EventSource } from 'eventsource'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/core/create-app.js'
import { systemRequest } from '../src/core/auth/superusers.js'
import { silentLogger } from '../src/core/logger.js'
import { createHttp } from '../src/http/server.js'
import * as realtime from '../src/features/realtime/index.js'
import { startServer, type TestServer } from './helpers/server.js'

interface Received {
  name: string
  data: any
  lastEventId: string
}

/** One SSE connection and everything it received, by event name. */
class Client {
  readonly received: Received[] = []
  private readonly listening = new Set<string>()
  clientId = ''

  private constructor(
    private readonly t: { url: string; api: TestServer['api'] },
    readonly es: EventSource,
  ) {}

  static async open(t: { url: string; api: TestServer['api'] }): Promise<Client> {
    const client = new Client(t, new EventSource(`${t.url}/api/realtime`))
    client.listen('SVC_CONNECT')
    const first = await client.next('SVC_CONNECT')
    client.clientId = first.data.clientId as string
    open.push(client)
    return client
  }

  listen(name: string): void {
    if (this.listening.has(name)) return
    this.listening.add(name)
    this.es.addEventListener(name, (e) => {
      this.received.push({ name, data: JSON.parse(e.data), lastEventId: e.lastEventId })
    })
  }

  /** Sets the subscriptions (plus `marks` unless `bare`); returns the response. */
  async subscribe(subscriptions: string[], token?: string | null, bare = false) {
    const all = bare ? subscriptions : [...subscriptions, 'marks']
    for (const s of all) this.listen(s)
    return this.t.api('POST', '/api/realtime', {
      token,
      body: { clientId: this.clientId, subscriptions: all },
    })
  }

  /** Waits for the first message named `name` (after `from`) matching `pred`. */
  async next(name: string, pred: (r: Received) => boolean = () => true, ms = 3000) {
    const deadline = Date.now() + ms
    for (;;) {
      const hit = this.received.find((r) => r.name === name && pred(r))
      if (hit) return hit
      if (Date.now() > deadline) {
        throw new Error(`no ${name} event; got ${JSON.stringify(this.received.map((r) => r.name))}`)
      }
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  /** Waits for the mark `label`, then returns and forgets what came before it. */
  async until(label: string): Promise<Received[]> {
    const mark = await this.next('marks', (r) => r.data.record.label === label)
    const i = this.received.indexOf(mark)
    const before = this.received.slice(0, i).filter((r) => r.name !== 'SVC_CONNECT')
    this.received.splice(0, i + 1)
    return before
  }

  close(): void {
    this.es.close()
  }
}

const open: Client[] = []

describe('realtime', () => {
  let t: TestServer
  let su: string
  const tokens: Record<string, string> = {}
  const userIds: Record<string, string> = {}
  let authorId = ''
  let markCount = 0

  const api = (method: string, path: string, body?: unknown, token: string | null = su) =>
    t.api(method, path, { body, token })
  /** Creates a mark (as a superuser) and returns its label. */
  const mark = async (): Promise<string> => {
    const label = `m${++markCount}`
    const res = await api('POST', '/api/collections/marks/records', { label })
    expect(res.status).toBe(200)
    return label
  }
  const createPost = async (title: string, extra: Record<string, unknown> = {}) => {
    const res = await api('POST', '/api/collections/posts/records', { title, ...extra })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.id as string
  }
  const summary = (events: Received[]) =>
    events.map((e) => `${e.data.action} ${e.data.record.title ?? e.data.record.text}`)

  beforeAll(async () => {
    t = await startServer()
    su = t.suToken
    const mk = async (body: Record<string, unknown>) => {
      const res = await api('POST', '/api/collections', body)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.id as string
    }
    const anyone = { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '' }
    await mk({ name: 'marks', ...anyone, schema: [{ name: 'label', type: 'text' }] })
    const authors = await mk({
      name: 'authors',
      ...anyone,
      schema: [{ name: 'name', type: 'text' }],
    })
    await mk({
      name: 'posts',
      ...anyone,
      schema: [
        { name: 'title', type: 'text', required: true, options: { max: 20 } },
        { name: 'author', type: 'relation', options: { collectionId: authors, maxSelect: 1 } },
        { name: 'secret', type: 'text', hidden: true },
      ],
    })
    const owner = 'owner = @request.auth.id'
    await mk({
      name: 'notes',
      listRule: owner,
      viewRule: owner,
      createRule: "@request.auth.id != '' && owner = @request.auth.id",
      deleteRule: owner,
      schema: [
        { name: 'text', type: 'text' },
        {
          name: 'owner',
          type: 'relation',
          options: { collectionId: '_pb_users_auth_', maxSelect: 1 },
        },
      ],
    })
    await mk({
      name: 'gated',
      listRule: '@request.headers.x_key = "k1" && @request.context = "realtime"',
      schema: [{ name: 'text', type: 'text' }],
    })
    for (const name of ['alice', 'bob']) {
      const email = `${name}@example.com`
      const created = await api('POST', '/api/collections/users/records', {
        email,
        password: 'password123',
        passwordConfirm: 'password123',
        name,
      })
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      userIds[name] = created.body.id
      const login = await api('POST', '/api/collections/users/auth-with-password', {
        identity: email,
        password: 'password123',
      })
      tokens[name] = login.body.token
    }
    const author = await api('POST', '/api/collections/authors/records', { name: 'Ann' })
    authorId = author.body.id
  })
  afterEach(() => {
    for (const c of open.splice(0)) c.close()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('greets each connection with SVC_CONNECT and its client id', async () => {
    const a = await Client.open(t)
    const b = await Client.open(t)
    expect(a.clientId).toMatch(/^[A-Za-z0-9]{40}$/)
    expect(b.clientId).not.toBe(a.clientId)
    const hello = await a.next('SVC_CONNECT')
    expect(hello.data).toEqual({ clientId: a.clientId })
    expect(hello.lastEventId).toBe(a.clientId)
  })

  it('delivers create, update and delete of a subscribed collection', async () => {
    const c = await Client.open(t)
    expect((await c.subscribe(['posts'])).status).toBe(204)
    const id = await createPost('first')
    expect(
      (await api('PATCH', `/api/collections/posts/records/${id}`, { title: 'second' })).status,
    ).toBe(200)
    expect((await api('DELETE', `/api/collections/posts/records/${id}`)).status).toBe(204)
    const events = await c.until(await mark())
    expect(summary(events)).toEqual(['create first', 'update second', 'delete second'])
    for (const e of events) {
      expect(e.name).toBe('posts')
      expect(e.lastEventId).toBe(c.clientId)
      expect(e.data.record).toMatchObject({ id, collectionName: 'posts' })
      expect(Object.keys(e.data).sort()).toEqual(['action', 'record'])
    }
    // A guest does not see the hidden field; `posts/*` and the collection id mean the same.
    expect(events[0]!.data.record).not.toHaveProperty('secret')
    const postsId = (await api('GET', '/api/collections/posts')).body.id as string
    await c.subscribe(['posts/*', `${postsId}/*`])
    await createPost('third')
    const both = await c.until(await mark())
    expect(both.map((e) => e.name).sort()).toEqual([`${postsId}/*`, 'posts/*'].sort())
  })

  it('sends a record topic only the events of that record', async () => {
    const keep = await createPost('keep')
    const other = await createPost('other')
    const c = await Client.open(t)
    expect((await c.subscribe([`posts/${keep}`])).status).toBe(204)
    await api('PATCH', `/api/collections/posts/records/${other}`, { title: 'other2' })
    await api('PATCH', `/api/collections/posts/records/${keep}`, { title: 'keep2' })
    await api('DELETE', `/api/collections/posts/records/${other}`)
    await api('DELETE', `/api/collections/posts/records/${keep}`)
    const events = await c.until(await mark())
    expect(summary(events)).toEqual(['update keep2', 'delete keep2'])
    expect(events.every((e) => e.name === `posts/${keep}`)).toBe(true)
  })

  it('filters each event by the listRule for each client', async () => {
    const alice = await Client.open(t)
    const bob = await Client.open(t)
    const guest = await Client.open(t)
    const admin = await Client.open(t)
    expect((await alice.subscribe(['notes/*'], tokens.alice)).status).toBe(204)
    expect((await bob.subscribe(['notes/*'], tokens.bob)).status).toBe(204)
    expect((await guest.subscribe(['notes/*'])).status).toBe(204)
    expect((await admin.subscribe(['notes/*'], su)).status).toBe(204)
    for (const who of ['alice', 'bob']) {
      const res = await api(
        'POST',
        '/api/collections/notes/records',
        { text: `by ${who}`, owner: userIds[who] },
        tokens[who],
      )
      expect(res.status, JSON.stringify(res.body)).toBe(200)
    }
    const label = await mark()
    expect(summary(await alice.until(label))).toEqual(['create by alice'])
    expect(summary(await bob.until(label))).toEqual(['create by bob'])
    expect(summary(await guest.until(label))).toEqual([])
    expect(summary(await admin.until(label))).toEqual(['create by alice', 'create by bob'])
  })

  it('delivers a delete although the row is gone, still by the rule', async () => {
    const created = await api(
      'POST',
      '/api/collections/notes/records',
      { text: 'doomed', owner: userIds.alice },
      tokens.alice,
    )
    const alice = await Client.open(t)
    const bob = await Client.open(t)
    await alice.subscribe([`notes/${created.body.id}`, 'notes'], tokens.alice)
    await bob.subscribe(['notes'], tokens.bob)
    const del = await api(
      'DELETE',
      `/api/collections/notes/records/${created.body.id}`,
      undefined,
      tokens.alice,
    )
    expect(del.status).toBe(204)
    const label = await mark()
    const seen = await alice.until(label)
    expect(seen.map((e) => `${e.name} ${e.data.action} ${e.data.record.text}`).sort()).toEqual([
      `notes delete doomed`,
      `notes/${created.body.id} delete doomed`,
    ])
    expect(await bob.until(label)).toEqual([])
  })

  it('applies the filter, expand and fields of the options, and their headers', async () => {
    const c = await Client.open(t)
    const options = {
      query: { filter: "title ~ 'keep'", expand: 'author', fields: 'id,title,expand.author.name' },
    }
    const sub = `posts?options=${encodeURIComponent(JSON.stringify(options))}`
    const keyed = `gated/*?options=${encodeURIComponent(JSON.stringify({ headers: { 'X-Key': 'k1' } }))}`
    const unkeyed = `gated/*?options=${encodeURIComponent(JSON.stringify({ headers: { 'X-Key': 'no' } }))}`
    expect((await c.subscribe([sub, keyed, unkeyed])).status).toBe(204)
    const id = await createPost('keep me', { author: authorId, secret: 'x' })
    await createPost('drop me', { author: authorId })
    expect((await api('POST', '/api/collections/gated/records', { text: 'g' })).status).toBe(200)
    const events = await c.until(await mark())
    expect(events.map((e) => e.name)).toEqual([sub, keyed])
    expect(events[0]!.data).toEqual({
      action: 'create',
      record: { id, title: 'keep me', expand: { author: { name: 'Ann' } } },
    })
    expect(events[1]!.data.record.text).toBe('g')
  })

  it('answers 404 for an unknown or closed client, 400 for a bad body', async () => {
    const c = await Client.open(t)
    const unknown = await api('POST', '/api/realtime', { clientId: 'nope', subscriptions: [] })
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toBe('Missing or invalid client id.')
    c.close()
    const deadline = Date.now() + 3000
    let status = 0
    while (Date.now() < deadline) {
      status = (await api('POST', '/api/realtime', { clientId: c.clientId, subscriptions: [] }))
        .status
      if (status === 404) break
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(status).toBe(404)

    const live = await Client.open(t)
    const bad = async (body: unknown) => {
      const res = await api('POST', '/api/realtime', body)
      expect(res.status).toBe(400)
      return res.body.data
    }
    expect((await bad({ subscriptions: [] })).clientId.code).toBe('validation_required')
    expect(
      (await bad({ clientId: live.clientId, subscriptions: 'posts' })).subscriptions.code,
    ).toBe('validation_invalid_value')
    expect(
      (await bad({ clientId: live.clientId, subscriptions: Array(1001).fill('posts') }))
        .subscriptions.code,
    ).toBe('validation_length_too_long')
    const items = (
      await bad({
        clientId: live.clientId,
        subscriptions: [
          'posts',
          'x'.repeat(2501),
          7,
          'a\nb',
          'posts?options=%7B',
          'posts?options=' + encodeURIComponent('{"query":{"filter":"a ="}}'),
        ],
      })
    ).subscriptions
    expect(Object.keys(items)).toEqual(['1', '2', '3', '4', '5'])
    expect(items['1'].code).toBe('validation_length_too_long')
    // PocketBase's params: { max, min }.
    expect(items['1'].params).toEqual({ max: 2500, min: 0 })
  })

  it('replaces the whole subscription set on each request', async () => {
    const c = await Client.open(t)
    await c.subscribe(['posts'])
    await c.subscribe(['authors'])
    await createPost('ignored')
    await api('POST', '/api/collections/authors/records', { name: 'Zed' })
    const events = await c.until(await mark())
    expect(events.map((e) => `${e.name} ${e.data.record.name}`)).toEqual(['authors Zed'])
    await c.subscribe([], undefined, true)
    await createPost('nobody')
    await new Promise((r) => setTimeout(r, 100))
    expect(c.received.filter((r) => r.name !== 'SVC_CONNECT')).toEqual([])
  })

  it('binds the auth of the first authorised request to the client', async () => {
    const c = await Client.open(t)
    expect((await c.subscribe(['notes'])).status).toBe(204)
    expect((await c.subscribe(['notes'], tokens.alice)).status).toBe(204)
    const mismatch = await c.subscribe(['notes'], tokens.bob)
    expect(mismatch.status).toBe(403)
    expect(mismatch.body.message).toBe(
      "The current and the previous request authorization don't match.",
    )
    expect((await c.subscribe(['notes'])).status).toBe(403)
    expect((await c.subscribe(['notes'], su)).status).toBe(403)
    expect((await c.subscribe(['notes'], tokens.alice)).status).toBe(204)
  })

  it('clears the bound auth when its token is invalidated', async () => {
    const c = await Client.open(t)
    const email = 'carol@example.com'
    const created = await api('POST', '/api/collections/users/records', {
      email,
      password: 'password123',
      passwordConfirm: 'password123',
    })
    const carol = created.body.id as string
    const login = await api('POST', '/api/collections/users/auth-with-password', {
      identity: email,
      password: 'password123',
    })
    expect((await c.subscribe(['notes'], login.body.token)).status).toBe(204)
    const note = async (text: string) =>
      expect(
        (await api('POST', '/api/collections/notes/records', { text, owner: carol })).status,
      ).toBe(200)
    await note('before')
    expect(summary(await c.until(await mark()))).toEqual(['create before'])
    // A password change rotates the tokenKey: the client becomes a guest, and stays connected.
    const changed = await api('PATCH', `/api/collections/users/records/${carol}`, {
      password: 'password456',
      passwordConfirm: 'password456',
    })
    expect(changed.status).toBe(200)
    await note('after')
    expect(summary(await c.until(await mark()))).toEqual([])
    // As a guest again, it may bind a fresh token.
    const relogin = await api('POST', '/api/collections/users/auth-with-password', {
      identity: email,
      password: 'password456',
    })
    expect((await c.subscribe(['notes'], relogin.body.token)).status).toBe(204)
    await note('again')
    expect(summary(await c.until(await mark()))).toEqual(['create again'])
    // Deleting the auth record clears it too: another auth may then bind (403 before).
    expect((await c.subscribe(['notes'], tokens.bob)).status).toBe(403)
    expect((await api('DELETE', `/api/collections/users/records/${carol}`)).status).toBe(204)
    await c.until(await mark())
    expect((await c.subscribe(['notes'], tokens.bob)).status).toBe(204)
  })

  it('emits only after commit: a failed create and a rolled-back transaction send nothing', async () => {
    const c = await Client.open(t)
    await c.subscribe(['posts'])
    const invalid = await api('POST', '/api/collections/posts/records', { title: 'x'.repeat(21) })
    expect(invalid.status).toBe(400)
    const app = t.server.app
    const posts = app.collections.get('posts')
    await expect(
      app.runInTransaction(async (tx) => {
        await tx.records.create(posts, { title: 'rolled back' }, systemRequest(tx))
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    expect(summary(await c.until(await mark()))).toEqual([])
  })

  it('delivers changes made through the record service like API ones', async () => {
    const c = await Client.open(t)
    await c.subscribe(['posts'])
    const app = t.server.app
    const posts = app.collections.get('posts')
    const rec = await app.records.create(posts, { title: 'from service' }, systemRequest(app))
    await app.runInTransaction(async (tx) => {
      await tx.records.update(posts, String(rec.id), { title: 'in tx' }, systemRequest(tx))
    })
    expect(summary(await c.until(await mark()))).toEqual(['create from service', 'update in tx'])
  })
})

describe('realtime composition', () => {
  it('sends keep-alive comments, SSE headers and named events to a client id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-realtime-'))
    const app = await createApp({ dataDir: dir, logger: silentLogger })
    const http = await createHttp(app)
    const rt = realtime.registerRealtime(app, http, { keepAliveMs: 50 })
    const url = await http.listen({ host: '127.0.0.1', port: 0 })
    try {
      const ac = new AbortController()
      const res = await fetch(`${url}/api/realtime`, { signal: ac.signal })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/event-stream')
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      const reader = res.body!.getReader()
      const decoder = new TextDecoder()
      let text = ''
      let clientId = ''
      let sent = false
      while (!text.includes('\n:\n\n') || !text.includes('llm_chunk')) {
        const { value, done } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
        clientId =
          /^id:(\w+)\nevent:SVC_CONNECT\ndata:\{"clientId":"\1"\}\n\n/.exec(text)?.[1] ?? ''
        if (clientId && !sent) {
          sent = true
          expect(
            await rt.sendToClient(clientId, 'llm_chunk', { requestId: 'r1', delta: 'Hi' }),
          ).toBe(true)
        }
      }
      expect(clientId).toHaveLength(40)
      expect(text).toContain(
        `id:${clientId}\nevent:llm_chunk\ndata:{"requestId":"r1","delta":"Hi"}\n\n`,
      )
      expect(text).toContain('\n:\n\n')
      expect(await rt.sendToClient('unknown', 'llm_done', {})).toBe(false)
      ac.abort()
      await reader.cancel().catch(() => undefined)
      const deadline = Date.now() + 2000
      while (rt.hub.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
      expect(rt.hub.size).toBe(0)
      // A stream still open when the server closes does not hold the close up.
      const es = new EventSource(`${url}/api/realtime`)
      await new Promise((r) => es.addEventListener('SVC_CONNECT', r))
      expect(rt.hub.size).toBe(1)
      await http.close()
      es.close()
    } finally {
      await app.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
