/**
 * Security issue #32, F1: one guest filter froze the server. A public collection with a
 * multi-relation to itself, each record linking the previous 50, and a 3-hop filter through it:
 * each hop was a nested `json_each` join, run synchronously on the event loop with no bound
 * (5.5 s on 120 rows with `/api/health` blocked throughout). Now a read runs on the event loop
 * for at most 20 ms, then on a reader thread, and is stopped at the read budget
 * (`settings.reads.timeoutMs`) with a precise 400 while the server keeps answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

let t: TestServer

/**
 * Polls `/api/health` every 50 ms until stopped; returns the longest time between two answers
 * (ms). The poller shares the server's event loop (an in-process server), so a stalled loop shows
 * as a long gap between answers, however fast each answer is once sent.
 */
function pollHealth(url: string): { stop: () => Promise<{ worst: number; answered: number }> } {
  let running = true
  let worst = 0
  let answered = 0
  const loop = (async () => {
    let last = performance.now()
    while (running) {
      const res = await fetch(`${url}/api/health`)
      await res.arrayBuffer()
      if (res.status === 200) answered++
      const now = performance.now()
      worst = Math.max(worst, now - last)
      last = now
      await new Promise((ok) => setTimeout(ok, 50))
    }
  })()
  return {
    async stop() {
      running = false
      await loop
      return { worst, answered }
    },
  }
}

beforeAll(async () => {
  t = await startServer()
  const created = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: {
      name: 'nodes',
      type: 'base',
      listRule: '',
      viewRule: '',
      createRule: '',
      fields: [{ name: 'title', type: 'text' }],
    },
  })
  expect(created.status).toBe(200)
  const id = created.body.id as string
  const fields = [
    ...created.body.fields,
    { name: 'links', type: 'relation', collectionId: id, maxSelect: 50 },
  ]
  const patched = await t.api('PATCH', `/api/collections/${id}`, {
    token: t.suToken,
    body: { fields },
  })
  expect(patched.status).toBe(200)
  // As a guest: 120 records, each linking the previous 50.
  const ids: string[] = []
  for (let i = 0; i < 120; i++) {
    const res = await t.api('POST', '/api/collections/nodes/records', {
      body: { title: `node ${i}`, links: ids.slice(-50) },
    })
    expect(res.status).toBe(200)
    ids.push(res.body.id as string)
  }
  const budget = await t.api('PATCH', '/api/settings', {
    token: t.suToken,
    body: { reads: { timeoutMs: 300 } },
  })
  expect(budget.status).toBe(200)
  expect(budget.body.reads).toEqual({ timeoutMs: 300 })
}, 120_000)

afterAll(async () => {
  await t?.close()
})

describe('the read budget', () => {
  it('stops a 3-hop guest filter with a 400 while /api/health keeps answering', async () => {
    const poll = pollHealth(t.url)
    await new Promise((ok) => setTimeout(ok, 200))
    const started = performance.now()
    const res = await t.api(
      'GET',
      `/api/collections/nodes/records?filter=${encodeURIComponent('links.links.links.title ?~ "zz"')}`,
    )
    const took = performance.now() - started
    await new Promise((ok) => setTimeout(ok, 200))
    const { worst, answered } = await poll.stop()
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      code: 400,
      status: 400,
      message:
        'The filter or sort took longer than the read budget of 300 ms to run and was stopped; narrow it down.',
      data: {},
    })
    // Stopped at the budget, not run to its end (each of its two reads takes ~1 s here, 5.5 s on
    // the attack's machine, minutes on 3 000 rows).
    expect(took).toBeGreaterThanOrEqual(250)
    expect(took).toBeLessThan(4000)
    // The server answered health checks all along: no stall anywhere near the filter's time.
    expect(answered).toBeGreaterThan(5)
    expect(worst).toBeLessThan(500)
  })

  it('answers the same filter again without stalling (a reader thread at once on SQLite)', async () => {
    const poll = pollHealth(t.url)
    const res = await t.api(
      'GET',
      `/api/collections/nodes/records?filter=${encodeURIComponent('links.links.links.title ?~ "zz"')}&skipTotal=1`,
    )
    const { worst } = await poll.stop()
    expect(res.status).toBe(400)
    expect(worst).toBeLessThan(500)
  })

  it('still answers cheap filters, and a 1-hop filter, in full', async () => {
    const one = await t.api(
      'GET',
      `/api/collections/nodes/records?perPage=200&filter=${encodeURIComponent('links.title ?= "node 0"')}`,
    )
    expect(one.status).toBe(200)
    // Records 1..50 link node 0.
    expect(one.body.totalItems).toBe(50)
    const all = await t.api('GET', '/api/collections/nodes/records?perPage=5')
    expect(all.status).toBe(200)
    expect(all.body.totalItems).toBe(120)
  })

  it('refuses a budget outside 50 ms to 10 minutes', async () => {
    for (const timeoutMs of [10, 600_001, 'x']) {
      const res = await t.api('PATCH', '/api/settings', {
        token: t.suToken,
        body: { reads: { timeoutMs } },
      })
      expect(res.status).toBe(400)
      expect(res.body.data.reads.timeoutMs.code).toMatch(/^validation_/)
    }
  })
})
