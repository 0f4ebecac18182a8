/**
 * The outbox with two instances on one PostgreSQL schema (`SVC_TEST_PG_URL`): two servers
 * (`createServer` with the same `databaseUrl` and `databaseSchema`) both read the due rows, and
 * each delivery is still sent by one of them at a time: every delivery is received exactly once
 * per attempt. Each first attempt is refused (500) and retried after a few milliseconds, so the
 * retries fall due while both instances look for work. Files are on the test S3 server, as
 * several instances require.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manageSuperuser } from '../src/core/auth/superusers.js'
import { silentLogger } from '../src/core/logger.js'
import { builtInFeatures } from '../src/features/index.js'
import { webhooksFeature } from '../src/features/webhooks/index.js'
import { createServer, type Server } from '../src/server.js'
import { s3Settings } from './helpers/s3.js'
import { startReceiver, waitFor } from './helpers/webhook-receiver.js'

const url = process.env.SVC_TEST_PG_URL
if (!url) throw new Error('SVC_TEST_PG_URL is not set: this test needs the PostgreSQL test setup')
const schema = `svc_wh_${Math.random().toString(36).slice(2, 10)}`
const SECRET = `whsec_${Buffer.from('instances-test-secret-0123').toString('base64')}`
const EMAIL = 'admin@example.com'
const PASSWORD = 'supersecret123'

interface Instance {
  server: Server
  dir: string
  base: string
  token: string
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
}

async function start(): Promise<Instance> {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-wh-instances-'))
  const features = builtInFeatures().map((f) =>
    f.name === 'webhooks' ? webhooksFeature({ backoffBaseMs: 20 }) : f,
  )
  const server = await createServer(
    { dataDir: dir, logger: silentLogger, databaseUrl: url, databaseSchema: schema },
    { features },
  )
  const base = await server.listen({ host: '127.0.0.1', port: 0 })
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: token } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : null }
  }
  const instance: Instance = {
    server,
    dir,
    base,
    token: '',
    api: (method, path, body) => call(method, path, body, instance.token),
  }
  return instance
}

async function signIn(i: Instance): Promise<void> {
  const res = await i.api('POST', '/api/collections/_superusers/auth-with-password', {
    identity: EMAIL,
    password: PASSWORD,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  i.token = res.body.token as string
}

const instances: Instance[] = []
// The first attempt of each delivery is refused; later ones are acknowledged.
const attempts = new Map<string, number>()
let receiver: Awaited<ReturnType<typeof startReceiver>>

beforeAll(async () => {
  receiver = await startReceiver(SECRET, (_n, r) => {
    const n = (attempts.get(r.id) ?? 0) + 1
    attempts.set(r.id, n)
    return n === 1 ? 500 : 200
  })
  const a = await start()
  instances.push(a)
  await manageSuperuser(a.server.app, 'create', EMAIL, PASSWORD)
  await signIn(a)
  expect(
    // Files on S3: a second instance refuses to start on local storage (features/storage).
    (
      await a.api('PATCH', '/api/settings', {
        webhooks: { allowPrivateNetworks: true },
        s3: s3Settings(),
      })
    ).status,
  ).toBe(200)
  const coll = await a.api('POST', '/api/collections', {
    name: 'orders',
    type: 'base',
    fields: [{ name: 'n', type: 'number' }],
    createRule: '',
  })
  expect(coll.status, JSON.stringify(coll.body)).toBe(200)
  const hook = await a.api('POST', '/api/collections/_webhooks/records', {
    name: 'orders',
    url: receiver.url,
    collection: 'orders',
    events: 'create',
    secret: SECRET,
    enabled: true,
  })
  expect(hook.status, JSON.stringify(hook.body)).toBe(200)
  // B starts on the same schema with everything above in place.
  const b = await start()
  instances.push(b)
  await signIn(b)
})

afterAll(async () => {
  for (const i of instances) {
    await i.server.close()
    rmSync(i.dir, { recursive: true, force: true })
  }
  await receiver?.close()
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await admin.end()
})

describe('the outbox with two instances on one PostgreSQL schema', () => {
  it('sends each delivery once per attempt although both instances look for due rows', async () => {
    const [a, b] = instances as [Instance, Instance]
    expect(await a.server.app.cluster.liveInstances()).toBe(2)
    const N = 40
    const created = await Promise.all(
      Array.from({ length: N }, (_, n) =>
        (n % 2 ? a : b).api('POST', '/api/collections/orders/records', { n }),
      ),
    )
    expect(created.filter((r) => r.status !== 200)).toEqual([])
    await waitFor(() => receiver.acknowledged().length >= N, 20_000)
    const ids = new Set(receiver.received.map((r) => r.id))
    expect(ids.size).toBe(N)
    // Each delivery: one refused attempt, then one acknowledged; never sent twice at once.
    for (const id of ids) expect(attempts.get(id), id).toBe(2)
    const numbers = receiver.acknowledged().map((r) => r.body.record.n as number)
    expect(numbers.sort((x, y) => x - y)).toEqual(Array.from({ length: N }, (_, n) => n))
    expect(receiver.received.every((r) => r.svcOk && r.standardOk)).toBe(true)
    // Everything delivered: the outbox is empty, seen from both instances.
    await waitFor(async () => {
      const counts = await Promise.all(
        [a, b].map((i) => i.api('GET', '/api/collections/_webhook_outbox/records')),
      )
      return counts.every((c) => c.body.totalItems === 0)
    })
  })

  it('queues on B for a webhook added on A (B hears of the _webhooks change)', async () => {
    const [a, b] = instances as [Instance, Instance]
    const hook = await a.api('POST', '/api/collections/_webhooks/records', {
      name: 'orders updates',
      url: receiver.url,
      collection: 'orders',
      events: 'update',
      secret: SECRET,
      enabled: true,
    })
    expect(hook.status, JSON.stringify(hook.body)).toBe(200)
    const order = await b.api('POST', '/api/collections/orders/records', { n: 1000 })
    expect(order.status).toBe(200)
    // B learns of the new webhook through the bus, a moment after A's commit: update until an
    // update delivery arrives.
    let n = 1000
    await waitFor(async () => {
      const updates = receiver.received.filter((r) => r.body?.event === 'update')
      if (updates.length > 0) return true
      await b.api('PATCH', `/api/collections/orders/records/${order.body.id}`, { n: ++n })
      return false
    })
    const update = receiver.received.find((r) => r.body?.event === 'update')!
    expect(update.body.record.id).toBe(order.body.id)
  })

  it('takes over a row whose lease ran out (its instance crashed)', async () => {
    const [a, b] = instances as [Instance, Instance]
    // A row leased long ago by an instance that is gone, due since then.
    const db = a.server.app.db
    const hook = await a.api('GET', '/api/collections/_webhooks/records')
    const webhook = hook.body.items[0].id as string
    const { sql } = await import('../src/store/sql.js')
    const past = '2020-01-01 00:00:00.000Z'
    await db.run(
      sql`INSERT INTO _webhook_outbox (id, webhook, body, attempts, "nextAttemptAt", "leaseUntil", created, updated) VALUES ('crashedlease001', ${webhook}, '{"crashed":true}', 1, ${past}, ${past}, ${past}, ${past})`,
    )
    attempts.set('crashedlease001', 1)
    a.server.app.services.get('webhooks').wake()
    b.server.app.services.get('webhooks').wake()
    await waitFor(() => receiver.acknowledged().some((r) => r.id === 'crashedlease001'))
    await waitFor(async () => {
      const row = await db.get(sql`SELECT id FROM _webhook_outbox WHERE id = 'crashedlease001'`)
      return row === undefined
    })
    expect(receiver.received.filter((r) => r.id === 'crashedlease001').length).toBe(1)
  })
})
