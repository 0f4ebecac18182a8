/**
 * Two svcbase processes (the CLI, `serve --db=$SVC_TEST_PG_URL --dbSchema=<fresh>`) on one
 * PostgreSQL schema, files on the test S3 server (`helpers/s3`): what one instance does, the
 * other sees, and what must happen once happens once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOpenAiDouble } from './helpers/openai-double.js'
import {
  call,
  runCli as runCliIn,
  serve as serveIn,
  stop,
  type Instance,
  type Place,
} from './helpers/pg-instances.js'
import { s3Settings } from './helpers/s3.js'
import { waitFor } from './helpers/webhook-receiver.js'

const url = process.env.SVC_TEST_PG_URL
if (!url) throw new Error('SVC_TEST_PG_URL is not set: this test needs the PostgreSQL test setup')
const schema = `svc_multi_${Math.random().toString(36).slice(2, 10)}`
const root = mkdtempSync(join(tmpdir(), 'svcbase-multi-'))
const hooksDir = join(root, 'hooks')
const EMAIL = 'admin@example.com'
const PASSWORD = 'supersecret123'
const place: Place = { url, schema, root }
const instances: Instance[] = []
/** Starts instance `name` (its data folder `<root>/<name>`, the shared hooks folder). */
const serve = async (name: string): Promise<Instance> => {
  const i = await serveIn(place, name)
  instances.push(i)
  return i
}

/** The hook script both instances load: a job every second writing one `ticks` record. */
const TICK_SCRIPT = `export default (app) => {
  app.cronAdd('tick', '* * * * * *', async () => {
    const c = app.collections.find('ticks')
    if (!c) return
    await app.records.create(c, { tick: Math.floor(Date.now() / 1000), pid: process.pid }, app.internalRequest())
  })
}
`

async function signIn(i: Instance, collection: string, identity: string, password: string) {
  const res = await call(i, 'POST', `/api/collections/${collection}/auth-with-password`, {
    identity,
    password,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body as { token: string; record: { id: string } }
}

/** A server-sent events reader over fetch. */
async function openStream(i: Instance) {
  const ctrl = new AbortController()
  const res = await fetch(`${i.base}/api/realtime`, { signal: ctrl.signal })
  const events: { event: string; data: any }[] = []
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += decoder.decode(value, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          let event = 'message'
          let data = ''
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim()
            else if (line.startsWith('data:')) data += line.slice(5).trim()
          }
          if (data) events.push({ event, data: JSON.parse(data) })
        }
      }
    } catch {
      // aborted
    }
  })()
  await waitFor(() => events.some((e) => e.event === 'PB_CONNECT'))
  const clientId = events.find((e) => e.event === 'PB_CONNECT')!.data.clientId as string
  return { events, clientId, close: () => ctrl.abort() }
}

let a: Instance
let b: Instance
let su = ''
const users: Record<string, { id: string; token: string }> = {}

beforeAll(async () => {
  mkdirSync(hooksDir, { recursive: true })
  writeFileSync(join(hooksDir, 'tick.js'), TICK_SCRIPT)
  const created = await runCliIn(place, [
    'superuser',
    'create',
    EMAIL,
    PASSWORD,
    `--dir=${join(root, 'a')}`,
  ])
  expect(created).toBe(0)
  // A alone first: files go to S3 before a second instance may start.
  a = await serve('a')
  su = (await signIn(a, '_superusers', EMAIL, PASSWORD)).token
  const s3 = await call(a, 'PATCH', '/api/settings', { s3: s3Settings() }, su)
  expect(s3.status, JSON.stringify(s3.body)).toBe(200)
  const collections = [
    {
      name: 'notes',
      type: 'base',
      fields: [
        { name: 'text', type: 'text' },
        { name: 'owner', type: 'relation', options: { collectionId: '_pb_users_auth_' } },
      ],
      listRule: 'owner = @request.auth.id',
      viewRule: 'owner = @request.auth.id',
      createRule: '',
    },
    {
      name: 'ticks',
      type: 'base',
      fields: [
        { name: 'tick', type: 'number' },
        { name: 'pid', type: 'number' },
      ],
      createRule: '',
    },
    { name: 'items', type: 'base', fields: [{ name: 'n', type: 'number' }], createRule: '' },
    { name: 'limited', type: 'base', fields: [{ name: 'n', type: 'number' }], createRule: '' },
  ]
  for (const c of collections) {
    const res = await call(a, 'POST', '/api/collections', c, su)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  for (const name of ['u1', 'u2']) {
    const res = await call(
      a,
      'POST',
      '/api/collections/users/records',
      {
        email: `${name}@example.com`,
        password: 'password123',
        passwordConfirm: 'password123',
      },
      su,
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  b = await serve('b')
  for (const name of ['u1', 'u2']) {
    const s = await signIn(b, 'users', `${name}@example.com`, 'password123')
    users[name] = { id: s.record.id, token: s.token }
  }
}, 120_000)

afterAll(async () => {
  await Promise.all(instances.map(stop))
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await admin.end()
  rmSync(root, { recursive: true, force: true })
})

// NB: three CLI processes start in beforeAll (tsx compiles each): generous bounds for loaded CI.
describe('two svcbase processes on one PostgreSQL schema', () => {
  it('delivers a create made on B to an SSE client on A, with A applying the rules', async () => {
    const u1 = users.u1!
    const stream = await openStream(a)
    try {
      const sub = await call(
        a,
        'POST',
        '/api/realtime',
        { clientId: stream.clientId, subscriptions: ['notes'] },
        u1.token,
      )
      expect(sub.status).toBe(204)
      // First a note u1 may not see, then one u1 may: only the second reaches u1's stream.
      const hidden = await call(b, 'POST', '/api/collections/notes/records', {
        text: 'for u2',
        owner: users.u2!.id,
      })
      expect(hidden.status).toBe(200)
      const shown = await call(b, 'POST', '/api/collections/notes/records', {
        text: 'for u1',
        owner: u1.id,
      })
      expect(shown.status).toBe(200)
      await waitFor(() => stream.events.some((e) => e.event === 'notes'))
      const notes = stream.events.filter((e) => e.event === 'notes')
      expect(notes.map((e) => [e.data.action, e.data.record.id])).toEqual([
        ['create', shown.body.id],
      ])
    } finally {
      stream.close()
    }
  })

  it('forwards a subscription sent to B to A, which holds the client’s stream', async () => {
    const u1 = users.u1!
    const stream = await openStream(a)
    try {
      const sub = await call(
        b,
        'POST',
        '/api/realtime',
        { clientId: stream.clientId, subscriptions: ['notes'] },
        u1.token,
      )
      expect(sub.status).toBe(204)
      const created = await call(b, 'POST', '/api/collections/notes/records', {
        text: 'again for u1',
        owner: u1.id,
      })
      expect(created.status).toBe(200)
      await waitFor(() => stream.events.some((e) => e.event === 'notes'))
      expect(stream.events.filter((e) => e.event === 'notes')[0]!.data.record.id).toBe(
        created.body.id,
      )
      // A client no instance holds: 404 once every instance said no.
      const missing = await call(
        b,
        'POST',
        '/api/realtime',
        { clientId: 'no-such-client', subscriptions: ['notes'] },
        u1.token,
      )
      expect(missing.status).toBe(404)
    } finally {
      stream.close()
    }
  })

  it('streams an LLM answer from B to a client on A in order, and hands A’s client an @oauth2 code from B once', async () => {
    const u1 = users.u1!
    const double = await startOpenAiDouble({ apiKey: 'sk-test-key', models: ['tiny-model'] })
    // Chunks come faster than the bus's round trips: most travel several to a notification.
    const chunks = Array.from({ length: 400 }, (_, i) => `chunk number ${i} `.repeat(3))
    double.behaviour = { chunks }
    const stream = await openStream(a)
    try {
      const llm = {
        enabled: true,
        provider: 'openai-compatible',
        baseUrl: double.url,
        apiKey: 'sk-test-key',
        model: 'tiny-model',
        timeout: 60,
      }
      expect((await call(a, 'PATCH', '/api/settings', { llm }, su)).status).toBe(200)
      const sub = await call(
        a,
        'POST',
        '/api/realtime',
        { clientId: stream.clientId, subscriptions: ['@oauth2'] },
        u1.token,
      )
      expect(sub.status).toBe(204)
      const body = { messages: [{ role: 'user', content: 'hi' }], clientId: stream.clientId }
      const chat = await call(b, 'POST', '/api/llm/chat', body, u1.token)
      expect(chat.status, JSON.stringify(chat.body)).toBe(200)
      await waitFor(() => stream.events.some((e) => e.event === 'llm_done'))
      const deltas = stream.events.filter((e) => e.event === 'llm_chunk').map((e) => e.data.delta)
      expect(deltas).toEqual(chunks)
      expect(stream.events.find((e) => e.event === 'llm_done')!.data.text).toBe(chunks.join(''))
      // Another user's chat to u1's client: 404 from B.
      const other = await call(b, 'POST', '/api/llm/chat', body, users.u2!.token)
      expect(other.status).toBe(404)

      const redirect = `/api/oauth2-redirect?state=${stream.clientId}&code=abc`
      // The short page (200/400) or, with the dashboard built, a redirect to its success or
      // failure page: either way, which one it was.
      const outcome = async (base: string) => {
        const res = await fetch(`${base}${redirect}`, { redirect: 'manual' })
        if (res.status === 307)
          return /success$/.test(res.headers.get('location') ?? '') ? 200 : 400
        return res.status
      }
      expect(await outcome(b.base)).toBe(200)
      await waitFor(() => stream.events.some((e) => e.event === '@oauth2'))
      expect(stream.events.filter((e) => e.event === '@oauth2').map((e) => e.data)).toEqual([
        { state: stream.clientId, code: 'abc' },
      ])
      // The subscription was taken: a second redirect, on either instance, is refused.
      expect(await outcome(b.base)).toBe(400)
      expect(await outcome(a.base)).toBe(400)
    } finally {
      stream.close()
      await call(a, 'PATCH', '/api/settings', { llm: { enabled: false } }, su)
      await double.close()
    }
  })

  it('invalidates a token on B for the very next request after a password change on A', async () => {
    const u2 = users.u2!
    const before = await call(b, 'POST', '/api/collections/users/auth-refresh', undefined, u2.token)
    expect(before.status).toBe(200)
    const changed = await call(
      a,
      'PATCH',
      `/api/collections/users/records/${u2.id}`,
      { password: 'password456', passwordConfirm: 'password456', oldPassword: 'password123' },
      u2.token,
    )
    expect(changed.status, JSON.stringify(changed.body)).toBe(200)
    const after = await call(b, 'POST', '/api/collections/users/auth-refresh', undefined, u2.token)
    expect(after.status).toBe(401)
    const view = await call(
      b,
      'GET',
      `/api/collections/users/records/${u2.id}`,
      undefined,
      u2.token,
    )
    expect(view.status).toBe(404)
  })

  it('runs a cron job of a hook script once per tick across both instances', async () => {
    const list = () =>
      call(a, 'GET', '/api/collections/ticks/records?perPage=500&sort=tick', undefined, su)
    const start = (await list()).body.totalItems as number
    await waitFor(async () => (await list()).body.totalItems >= start + 4, 15_000).catch((err) => {
      throw new Error(`${String(err)}\nA:\n${a.output()}\nB:\n${b.output()}`)
    })
    // Both instances run the job (whichever claims a tick first runs it)…
    await waitFor(async () => {
      const items = (await list()).body.items as { pid: number }[]
      return new Set(items.map((r) => r.pid)).size === 2
    }, 20_000)
    // …and no tick ran twice.
    const ticks = ((await list()).body.items as { tick: number }[]).map((r) => r.tick)
    expect(ticks.length).toBeGreaterThanOrEqual(4)
    expect(new Set(ticks).size).toBe(ticks.length)
  }, 60_000)

  it('shares a rate limit, and a settings change on A takes effect on B', async () => {
    const rules = [{ label: 'limited:create', audience: '@guest', duration: 60, maxRequests: 5 }]
    const patched = await call(
      a,
      'PATCH',
      '/api/settings',
      { rateLimits: { enabled: true, rules }, meta: { appName: 'Two instances' } },
      su,
    )
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    // Applied on B before A answered: the very next request there sees it.
    expect((await call(b, 'GET', '/api/settings', undefined, su)).body.meta.appName).toBe(
      'Two instances',
    )
    const statuses: number[] = []
    for (let n = 0; n < 8; n++) {
      const res = await call(n % 2 ? a : b, 'POST', '/api/collections/limited/records', { n })
      statuses.push(res.status)
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429])
    const off = await call(a, 'PATCH', '/api/settings', { rateLimits: { enabled: false } }, su)
    expect(off.status).toBe(200)
  })

  it('loses nothing acknowledged when one instance is killed with SIGKILL', async () => {
    const acknowledged: string[] = []
    let stop = false
    const writer = async () => {
      for (let n = 0; !stop; n++) {
        try {
          const res = await call(b, 'POST', '/api/collections/items/records', { n })
          if (res.status === 200) acknowledged.push(res.body.id as string)
        } catch {
          return // the connection died with the process
        }
      }
    }
    const writers = Array.from({ length: 4 }, writer)
    await waitFor(() => acknowledged.length >= 40, 20_000)
    b.child.kill('SIGKILL')
    await Promise.all(writers.map((w) => w.finally(() => (stop = true))))
    stop = true
    const seen = new Set<string>()
    for (let page = 1; ; page++) {
      const res = await call(
        a,
        'GET',
        `/api/collections/items/records?perPage=500&page=${page}`,
        undefined,
        su,
      )
      for (const r of res.body.items as { id: string }[]) seen.add(r.id)
      if (page >= res.body.totalPages) break
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(40)
    expect(acknowledged.filter((id) => !seen.has(id))).toEqual([])
    // A goes on alone.
    expect((await call(a, 'POST', '/api/collections/items/records', { n: -1 })).status).toBe(200)
  }, 60_000)
})
