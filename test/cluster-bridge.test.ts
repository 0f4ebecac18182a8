import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/core/app.js'
import { messageOf } from '../src/core/cluster-bridge.js'
import { createApp, newApp } from '../src/core/create-app.js'
import type { BusEvent } from '../src/core/events.js'
import { silentLogger } from '../src/core/logger.js'
import { writeParam } from '../src/core/params.js'
import { internalRequest } from '../src/core/request-info.js'
import { sql } from '../src/store/sql.js'
import type { Cluster, ClusterHandler, ClusterMessage } from '../src/store/cluster.js'
import { MemoryCounterStore } from '../src/tools/counter-store.js'
import { ClusterCounterStore } from '../src/features/rate-limit/cluster-counters.js'
import { AuthCache } from '../src/http/auth-cache.js'

/** An in-memory cluster: what it publishes is recorded, and `deliver` plays another instance. */
class FakeCluster implements Cluster {
  readonly instanceId = `fake-${Math.random()}`
  readonly shared = true
  readonly sent: ClusterMessage[] = []
  readonly handlers = new Set<ClusterHandler>()
  started = 0
  closed = 0
  claims: string[] = []
  isLeader = true
  readonly counters = new MemoryCounterStore({ pruneIntervalMs: 0 })
  readonly leader = {
    claim: (jobId: string) => {
      this.claims.push(jobId)
      return this.isLeader
    },
  }
  start(): Promise<void> {
    this.started++
    return Promise.resolve()
  }
  publish(message: ClusterMessage): void {
    this.sent.push(message)
  }
  subscribe(handler: ClusterHandler): () => void {
    this.handlers.add(handler)
    return () => this.handlers.delete(handler)
  }
  deliver(message: ClusterMessage): void {
    for (const h of this.handlers) void h(message)
  }
  liveInstances(): Promise<number> {
    return Promise.resolve(2)
  }
  close(): Promise<void> {
    this.closed++
    return Promise.resolve()
  }
}

/** Resolves with the next bus event matching `pred`. */
function nextEvent(app: App, pred: (e: BusEvent) => boolean): Promise<BusEvent> {
  return new Promise((resolve) => {
    const off = app.events.subscribe((e) => {
      if (!pred(e)) return
      off()
      resolve(e)
    })
  })
}

describe('messageOf', () => {
  const collection = { id: 'c1', name: 'notes', type: 'base' } as never
  it('carries ids only, and the record of a delete', () => {
    const record = { id: 'r1', title: 'x' }
    expect(messageOf({ kind: 'record', action: 'create', collection, record })).toEqual({
      kind: 'record',
      action: 'create',
      collectionId: 'c1',
      recordId: 'r1',
    })
    expect(messageOf({ kind: 'record', action: 'delete', collection, record })).toEqual({
      kind: 'record',
      action: 'delete',
      collectionId: 'c1',
      recordId: 'r1',
      record,
    })
    expect(messageOf({ kind: 'collection', action: 'update', collection })).toEqual({
      kind: 'collection',
      action: 'update',
      collectionId: 'c1',
    })
    expect(messageOf({ kind: 'settings' })).toEqual({ kind: 'settings' })
  })
})

describe('the cluster bridge of an app', () => {
  let dir: string
  let app: App
  const cluster = new FakeCluster()
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-bridge-'))
    app = await createApp({ dataDir: dir, logger: silentLogger, cluster })
    await app.collections.create({
      name: 'notes',
      listRule: '',
      viewRule: '',
      createRule: '',
      updateRule: '',
      deleteRule: '',
      schema: [{ name: 'title', type: 'text' }],
    })
  })
  afterAll(async () => {
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const notes = () => app.collections.get('notes')

  it('uses the configured cluster, started at bootstrap', () => {
    expect(app.cluster).toBe(cluster)
    expect(cluster.started).toBe(1)
  })

  it('sends every local event to the other instances', async () => {
    cluster.sent.length = 0
    const rec = await app.records.create(notes(), { title: 'a' }, internalRequest())
    await app.records.update(notes(), String(rec.id), { title: 'b' }, internalRequest())
    await app.records.delete(notes(), String(rec.id), internalRequest())
    await app.settings.update({ meta: { appName: 'Bridged' } })
    const id = String(rec.id)
    const c = notes().id
    expect(cluster.sent).toEqual([
      { kind: 'record', action: 'create', collectionId: c, recordId: id },
      { kind: 'record', action: 'update', collectionId: c, recordId: id },
      {
        kind: 'record',
        action: 'delete',
        collectionId: c,
        recordId: id,
        record: expect.objectContaining({ id, title: 'b' }),
      },
      { kind: 'settings' },
    ])
  })

  it('turns a create or update message into a local remote event with the record read again', async () => {
    const rec = await app.records.create(notes(), { title: 'before' }, internalRequest())
    const id = String(rec.id)
    // Another instance changes the row in the shared database, then tells us.
    await app.db.run(sql`UPDATE notes SET title = 'after' WHERE id = ${id}`)
    cluster.sent.length = 0
    const seen = nextEvent(app, (e) => e.kind === 'record' && e.remote === true)
    cluster.deliver({ kind: 'record', action: 'update', collectionId: notes().id, recordId: id })
    const event = await seen
    expect(event).toMatchObject({ kind: 'record', action: 'update', remote: true })
    expect(event.kind === 'record' && event.record.title).toBe('after')
    // Never echoed back.
    expect(cluster.sent).toEqual([])
  })

  it('skips a record that is gone, and publishes a delete with the carried record', async () => {
    const seen = nextEvent(app, (e) => e.kind === 'record' && e.remote === true)
    cluster.deliver({
      kind: 'record',
      action: 'create',
      collectionId: notes().id,
      recordId: 'gone',
    })
    cluster.deliver({
      kind: 'record',
      action: 'delete',
      collectionId: notes().id,
      recordId: 'x1',
      record: { id: 'x1', title: 'deleted elsewhere' },
    })
    const event = await seen
    expect(event).toMatchObject({
      action: 'delete',
      record: { id: 'x1', title: 'deleted elsewhere' },
    })
  })

  it('reloads the collections before publishing a collection event', async () => {
    // Another instance renamed the collection in the shared database.
    await app.db.run(sql`UPDATE _collections SET name = 'memos' WHERE id = ${notes().id}`)
    const id = notes().id
    const seen = nextEvent(app, (e) => e.kind === 'collection')
    cluster.deliver({ kind: 'collection', action: 'update', collectionId: id })
    const event = await seen
    expect(event).toMatchObject({ kind: 'collection', remote: true, collection: { name: 'memos' } })
    expect(app.collections.find('memos')?.id).toBe(id)
    await app.db.run(sql`UPDATE _collections SET name = 'notes' WHERE id = ${id}`)
    cluster.deliver({ kind: 'collection', action: 'update', collectionId: id })
    await nextEvent(app, (e) => e.kind === 'collection')
    expect(app.collections.find('notes')?.id).toBe(id)
  })

  it('reloads the settings before publishing a settings event', async () => {
    const stored = { meta: { appName: 'Changed elsewhere' } }
    await writeParam(app.db, 'settings', JSON.stringify(stored))
    const seen = nextEvent(app, (e) => e.kind === 'settings')
    cluster.deliver({ kind: 'settings' })
    expect(await seen).toEqual({ kind: 'settings', remote: true })
    expect(app.settings.get().meta.appName).toBe('Changed elsewhere')
  })

  it('asks the cluster leader before each scheduled run', async () => {
    cluster.isLeader = false
    const runs: string[] = []
    app.cron.add('every-second', '* * * * * *', () => void runs.push('ran'))
    app.cron.start()
    while (!cluster.claims.includes('every-second')) await new Promise((r) => setTimeout(r, 50))
    await app.cron.stop()
    app.cron.remove('every-second')
    expect(runs).toEqual([])
  })

  it('counts rate limits in the cluster counters, and caches no verified token', async () => {
    const local = new MemoryCounterStore({ pruneIntervalMs: 0 })
    const store = new ClusterCounterStore(app, local)
    await store.hit('k', 60_000)
    expect((await cluster.counters.hit('k', 60_000)).count).toBe(2)
    expect(local.size).toBe(0)
    const cache = new AuthCache(app)
    cache.set('t', { record: { id: 'u' }, collection: notes() }, undefined)
    expect(cache.get('t')).toBeUndefined()
  })

  it('closes the cluster at terminate and starts it again at the next bootstrap', async () => {
    const again = newApp({ dataDir: dir + '-2', logger: silentLogger, cluster })
    const before = { started: cluster.started, closed: cluster.closed }
    await again.bootstrap()
    await again.terminate()
    await again.bootstrap()
    await again.terminate()
    rmSync(dir + '-2', { recursive: true, force: true })
    expect(cluster.started - before.started).toBe(2)
    expect(cluster.closed - before.closed).toBe(2)
    expect(() => again.cluster).toThrow(/not bootstrapped/)
  })
})

describe('an app alone', () => {
  it('is local: not shared, one live instance', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-bridge-'))
    const app = await createApp({ dataDir: dir, logger: silentLogger })
    try {
      expect(app.cluster.shared).toBe(false)
      expect(await app.cluster.liveInstances()).toBe(1)
      const cache = new AuthCache(app)
      cache.set('t', { record: { id: 'u' }, collection: {} } as never, undefined)
      expect(cache.get('t')).toBeTruthy()
    } finally {
      await app.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
