import { describe, expect, it } from 'vitest'
import type { EnvelopeBody } from './bus.js'
import { BusOutbox, MAX_BATCH } from './bus-outbox.js'

/** A fake database: records each statement's payloads; `hold` keeps a statement waiting. */
function fakeIo() {
  const statements: unknown[][] = []
  const failures: string[] = []
  let gate: Promise<void> | null = null
  let open: (() => void) | null = null
  const io = {
    payload: (body: EnvelopeBody) => {
      if (JSON.stringify(body).includes('"boom"')) throw new Error('no payload')
      return Promise.resolve(JSON.stringify(body))
    },
    notify: async (payloads: string[]) => {
      statements.push(payloads.map((p) => (JSON.parse(p) as { message: { n: number } }).message.n))
      if (gate) await gate
      if (payloads.some((p) => p.includes('"fail"'))) throw new Error('notify failed')
    },
    failed: (err: unknown) => void failures.push(String(err)),
  }
  return {
    io,
    statements,
    failures,
    hold: () => {
      gate = new Promise((r) => (open = r))
    },
    release: () => {
      gate = null
      open?.()
    },
  }
}

const msg = (n: number | string, kind = 'record') =>
  ({ message: { kind, n } }) as unknown as EnvelopeBody

describe('BusOutbox', () => {
  it('sends in order, grouping what was posted while a statement was on its way', async () => {
    const f = fakeIo()
    const box = new BusOutbox(f.io)
    f.hold()
    const first = box.post(msg(1))
    await new Promise((r) => setImmediate(r))
    const rest = [2, 3, 4].map((n) => box.post(msg(n)))
    f.release()
    expect(await Promise.all([first, ...rest])).toEqual([true, true, true, true])
    expect(f.statements).toEqual([[1], [2, 3, 4]])
  })

  it('splits a group at a repeated payload (PostgreSQL would deliver one) and at a function', async () => {
    const f = fakeIo()
    const box = new BusOutbox(f.io)
    let ranAfter: unknown[][] = []
    const sent = [
      box.post(msg(1)),
      box.post(msg(2)),
      box.post(msg(2)),
      box.post(() => {
        ranAfter = f.statements.map((s) => [...s])
        return Promise.resolve(msg(3))
      }),
      box.post(msg(4)),
    ]
    expect(await Promise.all(sent)).toEqual([true, true, true, true, true])
    expect(f.statements).toEqual([[1, 2], [2], [3], [4]])
    expect(ranAfter).toEqual([[1, 2], [2]])
  })

  it('answers false for what could not be sent, and goes on with the rest', async () => {
    const f = fakeIo()
    const box = new BusOutbox(f.io)
    const sent = await Promise.all([
      box.post(msg(1, 'boom')),
      box.post(msg('fail')),
      box.post(() => Promise.resolve(null)),
      box.post(msg(5)),
    ])
    expect(sent).toEqual([false, false, true, true])
    expect(f.failures).toEqual(['Error: no payload', 'Error: notify failed'])
    expect(f.statements).toEqual([['fail'], [5]])
  })

  it(`sends at most ${MAX_BATCH} in one statement, and drained waits for all of them`, async () => {
    const f = fakeIo()
    const box = new BusOutbox(f.io)
    f.hold()
    void box.post(msg(0))
    await new Promise((r) => setImmediate(r))
    for (let n = 1; n <= MAX_BATCH + 1; n++) void box.post(msg(n))
    f.release()
    await box.drained()
    expect(f.statements.map((s) => s.length)).toEqual([1, MAX_BATCH, 1])
    await box.drained()
  })
})
