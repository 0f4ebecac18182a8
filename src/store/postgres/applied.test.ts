/**
 * `publishApplied` of the PostgreSQL cluster against a real server (`SVC_TEST_PG_URL`): several
 * clusters on one schema in this process, as instances would be. The wait ends when every other
 * live instance's handlers finished; late and failing instances are named; alone, nothing is sent.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppliedOutcome, ClusterMessage } from '../cluster.js'
import { busChannel } from './bus.js'
import { createPostgresCluster } from './cluster.js'

const url = process.env.SVC_TEST_PG_URL
if (!url) throw new Error('SVC_TEST_PG_URL is not set: the PostgreSQL tests need the test setup')
const schema = `svc_applied_${Math.random().toString(36).slice(2, 10)}`
const alone = `${schema}_alone`

type TestCluster = ReturnType<typeof createPostgresCluster>

const admin = new pg.Pool({ connectionString: url, max: 2 })
const warn = () => {}
const settingsMsg: ClusterMessage = { kind: 'settings' }
const recordMsg: ClusterMessage = {
  kind: 'record',
  action: 'create',
  collectionId: 'c1',
  recordId: 'r1',
}
const opened: TestCluster[] = []

async function cluster(on = schema): Promise<TestCluster> {
  const c = createPostgresCluster({ url: url!, schema: on, warn })
  opened.push(c)
  await c.start()
  return c
}

/** A promise with its resolve and reject at hand. */
function gate() {
  let open!: () => void
  let fail!: (err: Error) => void
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve
    fail = reject
  })
  return { promise, open, fail }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10))
}

let a: TestCluster
let b: TestCluster
let c: TestCluster

beforeAll(async () => {
  a = await cluster()
  b = await cluster()
  c = await cluster()
})

afterAll(async () => {
  for (const x of opened) await x.close()
  for (const s of [schema, alone]) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`)
  await admin.end()
})

describe('publishApplied on PostgreSQL', () => {
  it('resolves only once every other live instance applied the message', async () => {
    const gb = gate()
    const gc = gate()
    const got: string[] = []
    const offB = b.subscribe(async (m) => {
      got.push(`b:${m.kind}`)
      await gb.promise
      got.push('b:done')
    })
    const offC = c.subscribe(async (m) => {
      got.push(`c:${m.kind}`)
      await gc.promise
      got.push('c:done')
    })
    try {
      let outcome: AppliedOutcome | undefined
      let settled = false
      const wait = a.publishApplied(settingsMsg, 60_000).then((o) => (outcome = o))
      void a.settled().then(() => (settled = true))
      await until(() => got.includes('b:settings') && got.includes('c:settings'))
      gb.open()
      await until(() => got.includes('b:done'))
      // c has not finished: neither the wait nor `settled` is over.
      expect(outcome).toBeUndefined()
      expect(settled).toBe(false)
      gc.open()
      await wait
      expect(got.at(-1)).toBe('c:done')
      expect(outcome!.asked).toHaveLength(2)
      expect(outcome!.asked.join(' ')).toContain(b.instanceId)
      expect(outcome!.asked.join(' ')).toContain(c.instanceId)
      expect(outcome!.asked[0]).toMatch(/ pid \d+ \(/)
      expect(outcome).toMatchObject({ late: [], failed: [] })
      await a.settled()
    } finally {
      offB()
      offC()
    }
  })

  it('keeps its order with plain messages', async () => {
    const got: string[] = []
    const off = b.subscribe((m) => void got.push(m.kind))
    try {
      const wait = a.publishApplied(settingsMsg, 60_000)
      a.publish(recordMsg)
      await wait
      await until(() => got.length === 2)
      expect(got).toEqual(['settings', 'record'])
    } finally {
      off()
    }
  })

  it('names an instance whose handler failed, and one that did not answer in time', async () => {
    const never = gate()
    const offB = b.subscribe(() => Promise.reject(new Error('reload failed')))
    const offC = c.subscribe(() => never.promise)
    try {
      const outcome = await a.publishApplied(settingsMsg, 300)
      expect(outcome.failed).toHaveLength(1)
      expect(outcome.failed[0]).toContain(b.instanceId)
      expect(outcome.late).toHaveLength(1)
      expect(outcome.late[0]).toContain(c.instanceId)
    } finally {
      never.open()
      offB()
      offC()
    }
  })

  it('sends nothing and waits for nobody when alone', async () => {
    const lone = await cluster(alone)
    const listener = new pg.Client({ connectionString: url })
    await listener.connect()
    const payloads: string[] = []
    listener.on('notification', (n) => payloads.push(n.payload ?? ''))
    await listener.query(`LISTEN "${busChannel(alone)}"`)
    try {
      const outcome = await lone.publishApplied(settingsMsg, 60_000)
      expect(outcome).toEqual({ asked: [], late: [], failed: [] })
      // A plain message after it is the first notification: the settings one never left.
      lone.publish(recordMsg)
      await lone.flush()
      await until(() => payloads.length > 0)
      expect(payloads.map((p) => (JSON.parse(p) as { message: ClusterMessage }).message)).toEqual([
        recordMsg,
      ])
    } finally {
      await listener.end()
    }
  })
})
