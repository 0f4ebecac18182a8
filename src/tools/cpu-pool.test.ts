import { afterAll, describe, expect, it } from 'vitest'
import { CpuPool, CpuPoolBusyError, type CpuTask } from './cpu-pool.js'

const spin: CpuTask = {
  name: 'test.spin',
  source: `(input) => { const end = Date.now() + input.ms; while (Date.now() < end); return input.ms * 2 }`,
}
const fail: CpuTask = { name: 'test.fail', source: `() => { throw new Error('nope') }` }

describe('CpuPool', () => {
  const pool = new CpuPool(1, 2)
  const release = pool.retain()
  afterAll(() => release())

  it('runs tasks on a thread and returns their result', async () => {
    expect(await pool.run<number>(spin, { ms: 1 })).toBe(2)
    await expect(pool.run(fail, {})).rejects.toThrow('nope')
    expect(pool.running).toBe(1)
  })

  it('queues behind busy threads and refuses past the bounded queue', async () => {
    const running = pool.run<number>(spin, { ms: 200 })
    const queued = [pool.run<number>(spin, { ms: 1 }), pool.run<number>(spin, { ms: 1 })]
    expect(pool.queued).toBe(2)
    await expect(pool.run(spin, { ms: 1 })).rejects.toBeInstanceOf(CpuPoolBusyError)
    expect(await running).toBe(400)
    expect(await Promise.all(queued)).toEqual([2, 2])
  })

  it('stops its threads when the last user releases it', async () => {
    await release()
    expect(pool.running).toBe(0)
  })
})
