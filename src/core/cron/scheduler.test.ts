import { afterEach, describe, expect, it } from 'vitest'
import type { Logger } from '../logger.js'
import { CronScheduler } from './scheduler.js'
import type { CronLeader } from './types.js'

/** A logger that keeps what it is given. */
function recordingLogger() {
  const entries: { level: string; message: string; data?: Record<string, unknown> }[] = []
  const at = (level: string) => (message: string, data?: Record<string, unknown>) => {
    entries.push({ level, message, data })
  }
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  }
  return { logger, entries }
}

/** A promise with its resolver, to hold a job run open. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

/** Resolves once `check` is true, polling on the event loop (no timing assertion). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20))
}

const EVERY_SECOND = '* * * * * *'

describe('CronScheduler', () => {
  const schedulers: CronScheduler[] = []
  const make = (leader?: CronLeader) => {
    const log = recordingLogger()
    const cron = new CronScheduler({ logger: log.logger, leader })
    schedulers.push(cron)
    return { cron, entries: log.entries }
  }
  afterEach(async () => {
    for (const s of schedulers.splice(0)) await s.stop()
  })

  it('adds, replaces, lists (sorted) and removes jobs', () => {
    const { cron } = make()
    cron.add('b', '0 * * * *', () => undefined)
    cron.add('a', '@daily', () => undefined)
    cron.add('b', '*/5 * * * *', () => undefined)
    expect(cron.list()).toEqual([
      { id: 'a', expression: '@daily', source: 'system', running: false },
      { id: 'b', expression: '*/5 * * * *', source: 'system', running: false },
    ])
    expect(cron.remove('a')).toBe(true)
    expect(cron.remove('a')).toBe(false)
    expect(cron.list().map((j) => j.id)).toEqual(['b'])
  })

  it('keeps the source of a job (system by default) and tells observers of changes and runs', async () => {
    const { cron } = make()
    const seen: string[] = []
    const stop = cron.observe({
      added: (j) => seen.push(`added ${j.id} ${j.source}`),
      removed: (id) => seen.push(`removed ${id}`),
      ran: (id, r) => seen.push(`ran ${id} ${r.error ?? 'ok'} ${r.startedAt instanceof Date}`),
    })
    cron.add('sys', '@daily', () => undefined)
    cron.add('script', '@daily', () => Promise.reject(new Error('nope')), { source: 'hooks' })
    expect(cron.list().map((j) => [j.id, j.source])).toEqual([
      ['script', 'hooks'],
      ['sys', 'system'],
    ])
    await cron.runNow('sys')
    await cron.runNow('script')
    cron.add('sys', '@hourly', () => undefined)
    cron.remove('script')
    stop()
    cron.remove('sys')
    expect(seen).toEqual([
      'added sys system',
      'added script hooks',
      'ran sys ok true',
      'ran script nope true',
      'added sys system',
      'removed script',
    ])
  })

  it('refuses an invalid expression or an empty id, keeping the jobs it has', () => {
    const { cron } = make()
    cron.add('job', '0 * * * *', () => undefined)
    expect(() => cron.add('job', 'not a cron', () => undefined)).toThrow()
    expect(() => cron.add('', '0 * * * *', () => undefined)).toThrow(/id/)
    expect(cron.list()).toEqual([
      { id: 'job', expression: '0 * * * *', source: 'system', running: false },
    ])
  })

  it('does not start a run of a job while one is going (runNow)', async () => {
    const { cron } = make()
    const g = gate()
    let runs = 0
    cron.add('slow', '0 0 1 1 *', async () => {
      runs++
      await g.opened
    })
    const first = cron.runNow('slow')
    expect(cron.list()[0]?.running).toBe(true)
    expect(await cron.runNow('slow')).toBe(false)
    expect(runs).toBe(1)
    g.open()
    expect(await first).toBe(true)
    expect(cron.list()[0]?.running).toBe(false)
    expect(await cron.runNow('slow')).toBe(true)
    expect(runs).toBe(2)
  })

  it('skips scheduled ticks while a run is going, saying so in the log', async () => {
    const { cron, entries } = make()
    const g = gate()
    let runs = 0
    cron.add('tick', EVERY_SECOND, async () => {
      runs++
      await g.opened
    })
    cron.start()
    await until(() => entries.some((e) => e.message === 'cron job still running: run skipped'))
    expect(runs).toBe(1)
    expect(entries.find((e) => e.level === 'warn')?.data).toEqual({ job: 'tick' })
    expect(await cron.runNow('tick')).toBe(false)
    g.open()
    await until(() => runs >= 2)
  })

  it('logs a failing job with its id, scheduled or run now, and keeps scheduling it', async () => {
    const { cron, entries } = make()
    let runs = 0
    cron.add('boom', EVERY_SECOND, () => {
      runs++
      throw new Error('disk full')
    })
    expect(await cron.runNow('boom')).toBe(true)
    expect(entries).toEqual([
      {
        level: 'error',
        message: 'cron job failed',
        data: { job: 'boom', error: 'Error: disk full' },
      },
    ])
    cron.add('reject', EVERY_SECOND, () => Promise.reject(new Error('no route')))
    cron.start()
    await until(() => entries.some((e) => e.data?.job === 'reject'))
    await until(() => runs >= 3)
    expect(entries.find((e) => e.data?.job === 'reject')).toEqual({
      level: 'error',
      message: 'cron job failed',
      data: { job: 'reject', error: 'Error: no route' },
    })
  })

  it('rejects runNow of an unknown job', async () => {
    const { cron } = make()
    await expect(cron.runNow('missing')).rejects.toThrow(/unknown cron job "missing"/)
  })

  it('asks the leader before each scheduled run, not for runNow', async () => {
    const claims: { id: string; at: Date }[] = []
    const leader: CronLeader = {
      claim(id, at) {
        claims.push({ id, at })
        return false
      },
    }
    const { cron } = make(leader)
    let runs = 0
    cron.add('led', EVERY_SECOND, () => {
      runs++
    })
    cron.start()
    await until(() => claims.length >= 2)
    expect(runs).toBe(0)
    expect(claims[0]?.id).toBe('led')
    expect(claims[0]?.at).toBeInstanceOf(Date)
    expect(claims[1]!.at.getTime()).toBeGreaterThan(claims[0]!.at.getTime())
    // A tick is claimed by its second, the same on every instance whenever its timer fired.
    expect(claims.map((c) => c.at.getUTCMilliseconds())).toEqual(claims.map(() => 0))
    expect(await cron.runNow('led')).toBe(true)
    expect(runs).toBe(1)
    expect(claims.every((c) => c.id === 'led')).toBe(true)
  })

  it('logs a failing leader and skips that run', async () => {
    const leader: CronLeader = { claim: () => Promise.reject(new Error('lock table gone')) }
    const { cron, entries } = make(leader)
    let runs = 0
    cron.add('led', EVERY_SECOND, () => {
      runs++
    })
    cron.start()
    await until(() => entries.length > 0)
    expect(entries[0]).toEqual({
      level: 'error',
      message: 'cron leader check failed',
      data: { job: 'led', error: 'Error: lock table gone' },
    })
    expect(runs).toBe(0)
  })

  it('stops its timers, waits for the runs going, and starts again with the same jobs', async () => {
    const { cron } = make()
    const g = gate()
    let runs = 0
    cron.add('tick', EVERY_SECOND, async () => {
      runs++
      await g.opened
    })
    cron.start()
    expect(cron.started).toBe(true)
    await until(() => runs === 1)
    let stopped = false
    const stopping = cron.stop().then(() => (stopped = true))
    expect(cron.started).toBe(false)
    await new Promise((resolve) => setImmediate(resolve))
    expect(stopped).toBe(false)
    g.open()
    await stopping
    expect(cron.list()).toEqual([
      { id: 'tick', expression: EVERY_SECOND, source: 'system', running: false },
    ])
    cron.start()
    await until(() => runs === 2)
  })
})
