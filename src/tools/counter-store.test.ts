import { describe, expect, it } from 'vitest'
import { MemoryCounterStore } from './counter-store.js'

/** A store on a hand-driven clock, without the pruning timer. */
const setup = (maxKeys?: number) => {
  let now = 1_000_000
  const store = new MemoryCounterStore({ now: () => now, pruneIntervalMs: 0, maxKeys })
  return { store, advance: (ms: number) => (now += ms), at: () => now }
}

describe('MemoryCounterStore', () => {
  it('counts within a fixed window that starts at the first hit', async () => {
    const { store, advance, at } = setup()
    const start = at()
    expect(await store.hit('k', 1000)).toEqual({ count: 1, resetAt: start + 1000 })
    advance(400)
    expect(await store.hit('k', 1000)).toEqual({ count: 2, resetAt: start + 1000 })
    advance(599)
    expect((await store.hit('k', 1000)).count).toBe(3)
    advance(1)
    expect(await store.hit('k', 1000)).toEqual({ count: 1, resetAt: at() + 1000 })
  })

  it('keeps keys apart', async () => {
    const { store } = setup()
    await store.hit('a', 1000)
    await store.hit('a', 1000)
    expect((await store.hit('b', 1000)).count).toBe(1)
    expect((await store.hit('a', 1000)).count).toBe(3)
  })

  it('applies a shortened window to the running one at once', async () => {
    const { store, advance } = setup()
    await store.hit('k', 10_000)
    advance(2000)
    expect((await store.hit('k', 10_000)).count).toBe(2)
    expect((await store.hit('k', 1000)).count).toBe(1)
  })

  it('prunes ended windows only', async () => {
    const { store, advance } = setup()
    await store.hit('short', 1000)
    await store.hit('long', 5000)
    advance(1000)
    store.prune()
    expect(store.size).toBe(1)
    expect((await store.hit('long', 5000)).count).toBe(2)
    advance(4000)
    store.prune()
    expect(store.size).toBe(0)
  })

  it('stays within maxKeys by dropping the oldest window', async () => {
    const { store, advance } = setup(3)
    for (const k of ['a', 'b', 'c', 'd', 'e']) {
      await store.hit(k, 60_000)
      advance(1)
    }
    expect(store.size).toBe(3)
    // `a` and `b` were dropped and start afresh; `e` kept its count.
    expect((await store.hit('e', 60_000)).count).toBe(2)
    expect((await store.hit('a', 60_000)).count).toBe(1)
    expect(store.size).toBe(3)
  })

  it('forgets everything on reset and close', async () => {
    const { store } = setup()
    await store.hit('k', 1000)
    await store.reset()
    expect((await store.hit('k', 1000)).count).toBe(1)
    await store.close()
    expect(store.size).toBe(0)
  })

  it('does not keep the process alive with its pruning timer', async () => {
    const store = new MemoryCounterStore({ pruneIntervalMs: 10 })
    await store.hit('k', 1)
    await new Promise((r) => setTimeout(r, 40))
    expect(store.size).toBe(0)
    await store.close()
  })
})
