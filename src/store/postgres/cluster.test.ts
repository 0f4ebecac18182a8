/**
 * The PostgreSQL cluster against a real server (`SVC_TEST_PG_URL`, started by the test setup):
 * two clusters on one schema in this process, as two instances would be.
 */
import net from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClusterMessage } from '../cluster.js'
import { INLINE_LIMIT, busChannel, listenerName } from './bus.js'
import { createPostgresCluster } from './cluster.js'

const url = process.env.SVC_TEST_PG_URL
if (!url) throw new Error('SVC_TEST_PG_URL is not set: the PostgreSQL tests need the test setup')
const schema = `svc_cluster_${Math.random().toString(36).slice(2, 10)}`

type TestCluster = ReturnType<typeof createPostgresCluster>

const admin = new pg.Pool({ connectionString: url, max: 2 })
const warnings: string[] = []
const warn = (m: string) => warnings.push(m)
let a: TestCluster
let b: TestCluster
const gotA: ClusterMessage[] = []
const gotB: ClusterMessage[] = []

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** A claim, always as a promise. */
const claim = async (c: TestCluster, job: string, at: Date) => c.leader.claim(job, at)

const settingsMsg: ClusterMessage = { kind: 'settings' }
const recordMsg = (id: string): ClusterMessage => ({
  kind: 'record',
  action: 'create',
  collectionId: 'c1',
  recordId: id,
})

beforeAll(async () => {
  a = createPostgresCluster({ url, schema, warn })
  b = createPostgresCluster({ url, schema, warn })
  a.subscribe((m) => void gotA.push(m))
  b.subscribe((m) => void gotB.push(m))
  await Promise.all([a.start(), b.start()])
})

afterAll(async () => {
  await a?.close()
  await b?.close()
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await admin.end()
})

describe('the PostgreSQL cluster', () => {
  it('is shared, with a distinct id per instance, and creates its tables in the schema', async () => {
    expect(a.shared).toBe(true)
    expect(a.instanceId).not.toBe(b.instanceId)
    const r = await admin.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
      [schema],
    )
    expect(r.rows.map((x) => x.table_name)).toEqual([
      '_svc_bus',
      '_svc_cron_claims',
      '_svc_instances',
      '_svc_rate_counters',
    ])
  })

  it('delivers messages to the other instance, never back to the sender, in order', async () => {
    gotA.length = 0
    gotB.length = 0
    a.publish(recordMsg('r1'))
    a.publish(recordMsg('r2'))
    await until(() => gotB.length === 2, 'B to receive two messages')
    expect(gotB).toEqual([recordMsg('r1'), recordMsg('r2')])
    // B's answer reaches A after A's own echoes would have: A saw only B's message.
    b.publish(settingsMsg)
    await until(() => gotA.length > 0, 'A to receive B’s message')
    expect(gotA).toEqual([settingsMsg])
  })

  it('sends a message too big for NOTIFY through the _svc_bus table', async () => {
    gotB.length = 0
    const big: ClusterMessage = {
      kind: 'record',
      action: 'delete',
      collectionId: 'c1',
      recordId: 'big',
      record: { id: 'big', text: 'é'.repeat(INLINE_LIMIT) },
    }
    const before = await admin.query(`SELECT count(*)::int AS n FROM "${schema}"._svc_bus`)
    a.publish(big)
    a.publish(recordMsg('after-big'))
    await until(() => gotB.length === 2, 'B to receive the big message and the next one')
    expect(gotB).toEqual([big, recordMsg('after-big')])
    const after = await admin.query(`SELECT count(*)::int AS n FROM "${schema}"._svc_bus`)
    expect(after.rows[0].n).toBe(before.rows[0].n + 1)
  })

  it('ignores malformed notifications without failing', async () => {
    gotB.length = 0
    warnings.length = 0
    const channel = busChannel(schema)
    for (const payload of [
      'not json',
      '[]',
      '{"message":{"kind":"settings"}}',
      '{"from":"x","message":{"kind":"bogus"}}',
      '{"from":"x","ref":"1; DROP TABLE x"}',
      '{"from":"x","ref":999999999}',
    ]) {
      await admin.query('SELECT pg_notify($1, $2)', [channel, payload])
    }
    a.publish(recordMsg('valid'))
    await until(() => gotB.length === 1, 'B to receive the valid message')
    expect(gotB).toEqual([recordMsg('valid')])
    // Both instances listen: each ignored the six.
    expect(warnings.length).toBe(12)
    expect(warnings.join('\n')).toContain('not JSON')
  })

  it('reconnects its listener after the server drops it', async () => {
    const killed = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = $1`,
      [listenerName(b.instanceId)],
    )
    expect(killed.rows.length).toBe(1)
    await admin.query('SELECT pg_terminate_backend($1)', [killed.rows[0]!.pid])
    gotB.length = 0
    // Messages sent while B reconnects may be lost: send until one arrives.
    let n = 0
    await until(() => {
      if (gotB.some((m) => m.kind === 'record')) return true
      a.publish(recordMsg(`ping${n++}`))
      return false
    }, 'B to listen again')
    const again = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = $1`,
      [listenerName(b.instanceId)],
    )
    expect(again.rows.length).toBe(1)
    expect(again.rows[0]!.pid).not.toBe(killed.rows[0]!.pid)
    // What B missed meanwhile is unknown: its handlers were told to reload settings and
    // collections, before any message received on the new connection.
    expect(gotB.slice(0, 2)).toEqual([
      { kind: 'settings' },
      { kind: 'collection', action: 'update', collectionId: '' },
    ])
    expect(gotB.slice(2).every((m) => m.kind === 'record')).toBe(true)
    expect(warnings.some((w) => w.includes('listener connection was lost'))).toBe(true)
  })

  it('answers requests from the instance that holds what is asked for', async () => {
    const off = a.requests!.handle('find', async (payload) =>
      payload.key === 'held-by-a' ? { holder: a.instanceId, echo: payload.big ?? '' } : undefined,
    )
    try {
      expect(await b.requests!.ask('find', { key: 'held-by-a' })).toEqual({
        holder: a.instanceId,
        echo: '',
      })
      // Nobody holds it: every other instance said no.
      expect(await b.requests!.ask('find', { key: 'nobody' })).toBeUndefined()
      expect(await b.requests!.ask('unknown-topic', { key: 'held-by-a' })).toBeUndefined()
      // Too big for NOTIFY both ways: through _svc_bus.
      const big = 'x'.repeat(INLINE_LIMIT + 100)
      expect(await b.requests!.ask('find', { key: 'held-by-a', big })).toEqual({
        holder: a.instanceId,
        echo: big,
      })
    } finally {
      off()
    }
    expect(await b.requests!.ask('find', { key: 'held-by-a' })).toBeUndefined()
  })

  it('replaces a listener connection that went quiet without being closed', async () => {
    // A TCP proxy whose connections can be frozen: data stops, nothing is closed (a NAT that
    // forgot the connection). New connections pass.
    const target = new URL(url)
    const live = new Set<{ frozen: boolean; sockets: net.Socket[] }>()
    const proxy = net.createServer((inbound) => {
      const outbound = net.connect(Number(target.port), target.hostname)
      const link = { frozen: false, sockets: [inbound, outbound] }
      live.add(link)
      inbound.on('data', (d) => link.frozen || outbound.write(d))
      outbound.on('data', (d) => link.frozen || inbound.write(d))
      for (const s of link.sockets) s.on('error', () => s.destroy())
      inbound.on('close', () => outbound.destroy())
      outbound.on('close', () => inbound.destroy())
    })
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
    const via = new URL(url)
    via.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`
    const quiet: string[] = []
    const d = createPostgresCluster({
      url: via.toString(),
      schema,
      warn: (m) => quiet.push(m),
      heartbeatMs: 200,
    })
    const gotD: ClusterMessage[] = []
    d.subscribe((m) => void gotD.push(m))
    await d.start()
    try {
      a.publish(recordMsg('before-freeze'))
      await until(() => gotD.length === 1, 'D to receive through the proxy')
      for (const link of live) link.frozen = true
      await until(
        () => quiet.some((w) => w.includes('no answer within 200 ms')),
        'the probe to give up on the quiet listener',
      )
      let n = 0
      await until(() => {
        if (gotD.some((m) => m.kind === 'record' && m.recordId.startsWith('after-freeze')))
          return true
        a.publish(recordMsg(`after-freeze${n++}`))
        return false
      }, 'D to listen again on a new connection')
    } finally {
      // NB: the frozen pool connections would never answer: cut them first.
      for (const link of live) for (const s of link.sockets) s.destroy()
      proxy.close()
      await d.close()
    }
  })

  it('gives each scheduled run to exactly one instance', async () => {
    const tick = new Date('2030-01-01T00:00:00Z')
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => claim(i % 2 ? a : b, 'job1', tick)),
    )
    expect(claims.filter(Boolean).length).toBe(1)
    // The next tick and another job are claimed once each, independently.
    const next = new Date(tick.getTime() + 1000)
    const more = await Promise.all([
      claim(a, 'job1', next),
      claim(b, 'job1', next),
      claim(a, 'job2', tick),
      claim(b, 'job2', tick),
    ])
    expect(more.filter(Boolean).length).toBe(2)
    expect(more[0] !== more[1]).toBe(true)
    expect(more[2] !== more[3]).toBe(true)
  })

  it('counts shared rate-limit hits atomically across instances', async () => {
    const hits = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).counters!.hit('ip:1', 60_000)),
    )
    const counts = hits.map((h) => h.count).sort((x, y) => x - y)
    expect(counts).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
    expect(new Set(hits.map((h) => h.resetAt)).size).toBe(1)
    // Another key counts on its own.
    expect((await a.counters!.hit('ip:2', 60_000)).count).toBe(1)
    // An expired window starts again at 1.
    await admin.query(`UPDATE "${schema}"._svc_rate_counters SET reset_at = 0 WHERE key = 'ip:1'`)
    const fresh = await b.counters!.hit('ip:1', 60_000)
    expect(fresh.count).toBe(1)
    expect(fresh.resetAt).toBeGreaterThan(Date.now() - 60_000)
    await a.counters!.reset()
    expect((await b.counters!.hit('ip:1', 60_000)).count).toBe(1)
    expect((await b.counters!.hit('ip:1', 60_000)).count).toBe(2)
    // The length in force decides: a window shortened below its age has ended, the next starts.
    await admin.query('SELECT pg_sleep(0.01)')
    const shortened = await a.counters!.hit('ip:1', 5)
    expect(shortened.count).toBe(1)
    expect((await a.counters!.hit('ip:1', 60_000)).count).toBe(2)
  })

  it('counts live instances, and forgets one that closes; start again after close works', async () => {
    expect(await a.liveInstances()).toBe(2)
    await b.close()
    await b.close()
    expect(await a.liveInstances()).toBe(1)
    await expect(b.liveInstances()).rejects.toThrow('not started')
    expect(await b.leader.claim('job3', new Date())).toBe(false)
    const left = await admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`,
      [listenerName(b.instanceId)],
    )
    expect(left.rows[0].n).toBe(0)
    const row = await admin.query(`SELECT id FROM "${schema}"._svc_instances WHERE id = $1`, [
      b.instanceId,
    ])
    expect(row.rows).toEqual([])
    await b.start()
    expect(await a.liveInstances()).toBe(2)
    gotB.length = 0
    a.publish(recordMsg('after-restart'))
    await until(() => gotB.length === 1, 'B to receive after its restart')
    expect(gotB).toEqual([recordMsg('after-restart')])
  })

  it('does not count an instance whose connections are gone (killed), whatever its heartbeat', async () => {
    const before = await a.liveInstances()
    // A heartbeat written a moment ago by an instance that has no listener any more.
    await admin.query(
      `INSERT INTO "${schema}"._svc_instances (id, seen) VALUES ('killed', (extract(epoch from now()) * 1000)::bigint)`,
    )
    expect(await a.liveInstances()).toBe(before)
    await admin.query(`DELETE FROM "${schema}"._svc_instances WHERE id = 'killed'`)
  })

  it('counts the places of the live instances: one place per shared data folder', async () => {
    const other = `${schema}_p`
    const made = [
      createPostgresCluster({ url, schema: other, warn, place: 'p1' }),
      createPostgresCluster({ url, schema: other, warn, place: 'p1' }),
      createPostgresCluster({ url, schema: other, warn, place: 'p2' }),
      createPostgresCluster({ url, schema: other, warn }),
    ]
    try {
      for (const c of made) await c.start()
      expect(await made[0]!.liveInstances()).toBe(4)
      expect(await made[0]!.livePlaces!()).toBe(3)
      await made[1]!.close()
      await made[3]!.close()
      expect(await made[0]!.livePlaces!()).toBe(2)
    } finally {
      for (const c of made) await c.close()
      await admin.query(`DROP SCHEMA IF EXISTS "${other}" CASCADE`)
    }
  })

  it('keeps two schemas apart', async () => {
    const other = `${schema}_x`
    const c = createPostgresCluster({ url, schema: other, warn })
    const gotC: ClusterMessage[] = []
    c.subscribe((m) => void gotC.push(m))
    await c.start()
    try {
      expect(await c.liveInstances()).toBe(1)
      // Alone: nobody to ask.
      expect(await c.requests!.ask('find', { key: 'held-by-a' })).toBeUndefined()
      gotB.length = 0
      a.publish(recordMsg('only-same-schema'))
      c.publish(recordMsg('from-c'))
      await until(() => gotB.length === 1, 'B to receive')
      await a.flush()
      await c.flush()
      expect(gotB).toEqual([recordMsg('only-same-schema')])
      expect(gotC).toEqual([])
      expect(await c.leader.claim('job1', new Date('2030-01-01T00:00:00Z'))).toBe(true)
    } finally {
      await c.close()
      await admin.query(`DROP SCHEMA IF EXISTS "${other}" CASCADE`)
    }
  })
})
