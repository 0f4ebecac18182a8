/**
 * The cluster bridge's side of "a change is in force everywhere when the write answers": which
 * messages wait for the others, what it says about those that did not confirm, that its handler
 * resolves only once the change is applied here, and that messages received while the app is
 * still opening are handled once it is loaded. A fake cluster plays the other instances.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/core/app.js'
import { createApp, newApp } from '../src/core/create-app.js'
import type { Logger } from '../src/core/logger.js'
import { writeParam } from '../src/core/params.js'
import { internalRequest } from '../src/core/request-info.js'
import type {
  AppliedOutcome,
  Cluster,
  ClusterHandler,
  ClusterMessage,
} from '../src/store/cluster.js'

/** A cluster whose `publishApplied` resolves with `outcome` once `release` is called. */
class WaitingCluster implements Cluster {
  readonly instanceId = 'waiting'
  readonly shared = true
  readonly published: ClusterMessage[] = []
  readonly applied: ClusterMessage[] = []
  readonly handlers = new Set<ClusterHandler>()
  outcome: AppliedOutcome = { asked: ['other'], late: [], failed: [] }
  private releases: (() => void)[] = []
  private running = new Set<Promise<unknown>>()
  readonly leader = { claim: () => true }
  readonly counters = null
  start = () => Promise.resolve()
  close = () => Promise.resolve()
  liveInstances = () => Promise.resolve(2)
  publish(message: ClusterMessage): void {
    this.published.push(message)
  }
  publishApplied(message: ClusterMessage): Promise<AppliedOutcome> {
    this.applied.push(message)
    const wait = new Promise<AppliedOutcome>((resolve) =>
      this.releases.push(() => resolve(this.outcome)),
    )
    this.running.add(wait)
    void wait.then(() => this.running.delete(wait))
    return wait
  }
  settled(): Promise<void> {
    return Promise.all([...this.running]).then(() => undefined)
  }
  release(): void {
    for (const r of this.releases.splice(0)) r()
  }
  subscribe(handler: ClusterHandler): () => void {
    this.handlers.add(handler)
    return () => this.handlers.delete(handler)
  }
  /** Plays another instance; resolves when every handler here is done with the message. */
  deliver(message: ClusterMessage): Promise<unknown> {
    return Promise.all([...this.handlers].map(async (h) => h(message)))
  }
}

const warnings: { message: string; data?: Record<string, unknown> }[] = []
const logger: Logger = {
  debug() {},
  info() {},
  warn: (message, data) => void warnings.push({ message, data }),
  error() {},
}

let dir: string
let app: App
const cluster = new WaitingCluster()

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svcbase-bridge-applied-'))
  app = await createApp({ dataDir: dir, logger, cluster })
})

afterAll(async () => {
  cluster.release()
  await app.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the bridge and the changes the others must apply', () => {
  it('waits for the others on settings and collection changes, never on records', async () => {
    await app.settings.update({ meta: { appName: 'Waited for' } })
    const c = await app.collections.create({ name: 'waited', createRule: '', schema: [] })
    await app.records.create(c, {}, internalRequest())
    expect(cluster.applied).toEqual([
      { kind: 'settings' },
      { kind: 'collection', action: 'create', collectionId: c.id },
    ])
    expect(cluster.published.map((m) => m.kind)).toEqual(['record'])
    let settled = false
    const done = cluster.settled().then(() => (settled = true))
    await new Promise((r) => setImmediate(r))
    expect(settled).toBe(false)
    cluster.release()
    await done
  })

  it('names the instances that did not confirm, or failed', async () => {
    warnings.length = 0
    cluster.outcome = { asked: ['b', 'c', 'd'], late: ['b (pid 1)'], failed: ['c (pid 2)'] }
    await app.settings.update({ meta: { appName: 'Late' } })
    cluster.release()
    await cluster.settled()
    await new Promise((r) => setImmediate(r))
    expect(warnings).toEqual([
      {
        message: expect.stringContaining(
          'settings change answered before these instances applied it',
        ),
        data: { instances: 'b (pid 1)' },
      },
      {
        message: 'cluster: these instances failed to apply the settings change',
        data: { instances: 'c (pid 2)' },
      },
    ])
    cluster.outcome = { asked: ['b'], late: [], failed: [] }
  })

  it('confirms a settings message only once the settings are reloaded', async () => {
    await writeParam(app.db, 'settings', JSON.stringify({ meta: { appName: 'From elsewhere' } }))
    await cluster.deliver({ kind: 'settings' })
    expect(app.settings.get().meta.appName).toBe('From elsewhere')
  })

  it('confirms a failed reload as a failure', async () => {
    await writeParam(app.db, 'settings', '{not json')
    await expect(cluster.deliver({ kind: 'settings' })).rejects.toThrow()
    await writeParam(app.db, 'settings', JSON.stringify({ meta: { appName: 'Back' } }))
    await cluster.deliver({ kind: 'settings' })
    expect(app.settings.get().meta.appName).toBe('Back')
  })
})

describe('a message received while the app opens', () => {
  it('is handled once the app is loaded, and confirmed then', async () => {
    const other = new WaitingCluster()
    const otherDir = mkdtempSync(join(tmpdir(), 'svcbase-bridge-opening-'))
    const late = newApp({ dataDir: otherDir, logger, cluster: other })
    const remote: unknown[] = []
    late.events.subscribe((e) => void (e.kind === 'settings' && e.remote && remote.push(e)))
    let handled: Promise<unknown> | undefined
    // The message arrives once the cluster started, before the settings are loaded.
    const start = other.start
    other.start = () => {
      handled = other.deliver({ kind: 'settings' })
      return start()
    }
    try {
      await late.bootstrap()
      await handled
      // Not dropped: handled once loaded (the settings read again, the event published).
      expect(remote).toEqual([{ kind: 'settings', remote: true }])
    } finally {
      await late.terminate()
      rmSync(otherDir, { recursive: true, force: true })
    }
  })
})
