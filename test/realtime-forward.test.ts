/**
 * Pushes to one realtime client across instances (issue 17): two apps in one process, each with
 * its own hub, linked by an in-memory cluster whose requests reach the other instance after a
 * random delay (so concurrent requests overtake each other, as a real transport may let them).
 * A client's stream is on A; B's `messenger` pushes to it, asks its owner and takes its
 * subscriptions, and A answers with its own checks.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/core/app.js'
import { createApp } from '../src/core/create-app.js'
import { silentLogger } from '../src/core/logger.js'
import { createHttp } from '../src/http/server.js'
import * as realtime from '../src/features/realtime/index.js'
import { ProviderClient } from '../src/features/oauth2/client.js'
import { MAX_BATCH_EVENTS } from '../src/features/realtime/messenger.js'
import type {
  Cluster,
  ClusterHandler,
  ClusterRecord,
  ClusterRequests,
} from '../src/store/cluster.js'

type Answerer = (payload: ClusterRecord) => Promise<ClusterRecord | undefined>

/** The instances of one in-memory cluster. */
class Network {
  readonly members = new Set<MemoryCluster>()
}

/** One instance's link: requests reach every other member after 0 to 3 ms, in no fixed order. */
class MemoryCluster implements Cluster {
  readonly instanceId = `mem-${Math.random()}`
  readonly shared = true
  readonly answerers = new Map<string, Answerer>()
  /** The topics this instance asked, in order. */
  readonly asked: string[] = []
  readonly leader = { claim: () => true }
  readonly counters = null
  readonly requests: ClusterRequests = {
    ask: (topic, payload) => {
      this.asked.push(topic)
      const others = [...this.net.members].filter((m) => m !== this)
      return new Promise((resolve) => {
        let waiting = others.length
        if (waiting === 0) return resolve(undefined)
        for (const other of others) {
          setTimeout(
            () => {
              const handler = other.answerers.get(topic)
              const answer = handler
                ? handler(structuredClone(payload))
                : Promise.resolve(undefined)
              void answer.then((value) => {
                if (value) resolve(value)
                else if (--waiting === 0) resolve(undefined)
              })
            },
            Math.floor(Math.random() * 4),
          )
        }
      })
    },
    handle: (topic, handler) => {
      this.answerers.set(topic, handler)
      return () => this.answerers.delete(topic)
    },
  }

  constructor(private readonly net: Network) {
    net.members.add(this)
  }
  start(): Promise<void> {
    return Promise.resolve()
  }
  publish(): void {}
  subscribe(_handler: ClusterHandler): () => void {
    return () => undefined
  }
  liveInstances(): Promise<number> {
    return Promise.resolve(this.net.members.size)
  }
  close(): Promise<void> {
    return Promise.resolve()
  }
}

interface Instance {
  app: App
  rt: realtime.Realtime
  cluster: MemoryCluster
  url: string
  close(): Promise<void>
}

async function instance(net: Network): Promise<Instance> {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-forward-'))
  const cluster = new MemoryCluster(net)
  const app = await createApp({ dataDir: dir, logger: silentLogger, cluster })
  const http = await createHttp(app)
  const rt = realtime.registerRealtime(app, http, { keepAliveMs: 60_000 })
  await app.serve()
  const url = await http.listen({ host: '127.0.0.1', port: 0 })
  return {
    app,
    rt,
    cluster,
    url,
    close: async () => {
      await http.close()
      await app.terminate()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** An SSE stream read as it comes: its client id, and every `event`/`data` pair so far. */
async function openStream(url: string) {
  const ac = new AbortController()
  const res = await fetch(`${url}/api/realtime`, { signal: ac.signal })
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const state = { text: '', clientId: '', events: [] as { event: string; data: any }[] }
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done) return
      state.text += decoder.decode(value, { stream: true })
      let end: number
      while ((end = state.text.indexOf('\n\n')) >= 0) {
        const block = state.text.slice(0, end)
        state.text = state.text.slice(end + 2)
        const event = /^event:(.*)$/m.exec(block)?.[1]
        const data = /^data:(.*)$/m.exec(block)?.[1]
        if (event === undefined || data === undefined) continue
        if (event === 'PB_CONNECT' || event === 'SVC_CONNECT')
          state.clientId = JSON.parse(data).clientId as string
        else state.events.push({ event, data: JSON.parse(data) })
      }
    }
  })()
  while (!state.clientId) await new Promise((r) => setTimeout(r, 5))
  return {
    state,
    close: async () => {
      ac.abort()
      await pump
    },
  }
}

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 5))
}

describe('pushes to a realtime client held by another instance', () => {
  const net = new Network()
  let a: Instance
  let b: Instance

  beforeAll(async () => {
    a = await instance(net)
    b = await instance(net)
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it('delivers every event sent from B, whole and in order, in batches', async () => {
    const stream = await openStream(a.url)
    try {
      const id = stream.state.clientId
      const n = 500
      b.cluster.asked.length = 0
      // Not awaited one by one: the messenger keeps the order by itself.
      const sends: Promise<boolean>[] = []
      for (let i = 0; i < n; i++) sends.push(b.rt.sendToClient(id, 'llm_chunk', { i }))
      expect(await Promise.all(sends)).toEqual(Array(n).fill(true))
      await until(() => stream.state.events.length === n)
      expect(stream.state.events.map((e) => e.data.i)).toEqual([...Array(n).keys()])
      expect(stream.state.events.every((e) => e.event === 'llm_chunk')).toBe(true)
      // Batched: far fewer requests than events, none bigger than the batch limit.
      const sendsAsked = b.cluster.asked.filter((t) => t === 'realtime.send').length
      expect(sendsAsked).toBeGreaterThanOrEqual(Math.ceil(n / MAX_BATCH_EVENTS))
      expect(sendsAsked).toBeLessThan(n)
      // A's own sends to its client ask nobody.
      a.cluster.asked.length = 0
      expect(await a.rt.sendToClient(id, 'llm_done', { text: 'x' })).toBe(true)
      expect(a.cluster.asked).toEqual([])
    } finally {
      await stream.close()
    }
  })

  it('answers false for a client no instance holds, and refuses a line break at once', async () => {
    expect(await b.rt.sendToClient('nobody', 'llm_chunk', {})).toBe(false)
    expect(await b.rt.clientOwner('nobody')).toBeUndefined()
    expect(await b.rt.takeSubscription('nobody', '@oauth2')).toBe(false)
    expect(() => b.rt.sendToClient('nobody', 'a\nb', {})).toThrow(/must not contain/)
  })

  it('stops delivering once the client is gone, and fails the events queued after', async () => {
    const stream = await openStream(a.url)
    const id = stream.state.clientId
    expect(await b.rt.sendToClient(id, 'e', { i: 0 })).toBe(true)
    await stream.close()
    await until(() => a.rt.hub.get(id) === undefined)
    const later = [b.rt.sendToClient(id, 'e', { i: 1 }), b.rt.sendToClient(id, 'e', { i: 2 })]
    expect(await Promise.all(later)).toEqual([false, false])
  })

  it("tells B the client's owner as A binds it: a guest, then an auth record", async () => {
    const stream = await openStream(a.url)
    try {
      const id = stream.state.clientId
      expect(await b.rt.clientOwner(id)).toBeNull()
      const client = a.rt.hub.get(id)!
      const users = a.app.collections.get('users')
      client.auth = { collection: users, record: { id: 'u1' } }
      expect(await b.rt.clientOwner(id)).toEqual({ collectionId: users.id, recordId: 'u1' })
    } finally {
      await stream.close()
    }
  })

  it('lets one take only of a subscription succeed, from whichever instances, with the IP check', async () => {
    const stream = await openStream(a.url)
    try {
      const id = stream.state.clientId
      const client = a.rt.hub.get(id)!
      a.rt.hub.subscribe(client, [{ name: '@oauth2', topic: '@oauth2' } as never])
      // Another IP than the stream's: refused, and the subscription stays.
      expect(await b.rt.takeSubscription(id, '@oauth2', '203.0.113.9')).toBe(false)
      expect(client.subscriptions.size).toBe(1)
      const takes = await Promise.all([
        b.rt.takeSubscription(id, '@oauth2', client.ip),
        b.rt.takeSubscription(id, '@oauth2', client.ip),
        a.rt.takeSubscription(id, '@oauth2', client.ip),
        b.rt.takeSubscription(id, '@oauth2', client.ip),
      ])
      expect(takes.filter(Boolean)).toHaveLength(1)
      expect(client.subscriptions.size).toBe(0)
    } finally {
      await stream.close()
    }
  })

  it("hands Apple's posted name to the instance that exchanges the code, once", async () => {
    const onA = new ProviderClient(a.app)
    const onB = new ProviderClient(b.app)
    const stop = onA.answerRedirectNames()
    try {
      onA.rememberRedirectName(
        'code-1',
        JSON.stringify({ name: { firstName: 'Ann', lastName: 'Lee' } }),
      )
      expect(await onB.takeSharedRedirectName('code-2')).toBe('')
      expect(await onB.takeSharedRedirectName('code-1')).toBe('Ann Lee')
      expect(await onB.takeSharedRedirectName('code-1')).toBe('')
      expect(onA.takeRedirectName('code-1')).toBe('')
    } finally {
      stop()
    }
  })
})
