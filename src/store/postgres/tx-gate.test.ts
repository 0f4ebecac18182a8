import { describe, expect, it } from 'vitest'
import { TxGate } from './tx-gate.js'

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((r) => setImmediate(r))

describe('TxGate', () => {
  it('lets up to its limit in side by side, the next one when a holder leaves', async () => {
    const gate = new TxGate(2)
    const got: number[] = []
    const releases = [0, 1, 2].map((i) => gate.acquire(false).then((r) => (got.push(i), r)))
    await settle()
    expect(got).toEqual([0, 1])
    expect(gate.active).toBe(2)
    ;(await releases[0]!)()
    await settle()
    expect(got).toEqual([0, 1, 2])
  })

  it('runs an exclusive holder alone, in arrival order: later shared ones wait behind it', async () => {
    const gate = new TxGate(4)
    const order: string[] = []
    const first = await gate.acquire(false)
    order.push('shared 1')
    const alone = gate.acquire(true).then((r) => (order.push('exclusive'), r))
    const later = gate.acquire(false).then((r) => (order.push('shared 2'), r))
    await settle()
    expect(order).toEqual(['shared 1'])
    first()
    ;(await alone)()
    ;(await later)()
    expect(order).toEqual(['shared 1', 'exclusive', 'shared 2'])
  })

  it('ignores a second release, and reports idle once nothing holds or waits', async () => {
    const gate = new TxGate(1)
    const release = await gate.acquire(false)
    let idle = false
    const waiting = gate.idle().then(() => (idle = true))
    release()
    release()
    await waiting
    expect(idle).toBe(true)
    expect(gate.active).toBe(0)
    const again = await gate.acquire(true)
    expect(gate.active).toBe(1)
    again()
  })

  it('refuses a limit below one', () => {
    expect(() => new TxGate(0)).toThrow(/invalid transaction limit/)
  })
})
