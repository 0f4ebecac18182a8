/**
 * `_cron_jobs` as the mirror of the scheduler (SPEC §2.6, issue 13 part 3): one row per job with
 * its source, the outcome of the last run (run now or scheduled), live adds and removes, stale
 * rows dropped at start, and no writes through the records API.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../src/core/logger.js'
import { createServer } from '../src/server.js'
import { sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'

interface Row {
  id: string
  jobId: string
  expression: string
  source: string
  lastRun: string
  lastStatus: string
  lastError: string
}

/** Polls `check` until it holds (or fails the test after `ms`). */
async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('_cron_jobs', () => {
  let t: TestServer
  const rows = async (): Promise<Row[]> => {
    const res = await t.api('GET', '/api/collections/_cron_jobs/records?perPage=500&sort=jobId', {
      token: t.suToken,
    })
    expect(res.status).toBe(200)
    return res.body.items
  }
  const row = async (jobId: string) => (await rows()).find((r) => r.jobId === jobId)
  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(() => t.close())

  it('holds one row per registered job, source system, never run yet', async () => {
    const jobs = t.server.app.cron.list()
    const all = await rows()
    expect(all.map((r) => r.jobId)).toEqual(jobs.map((j) => j.id))
    for (const id of ['__svcDBOptimize__', '__svcMFACleanup__', '__svcOTPCleanup__']) {
      expect(all.find((r) => r.jobId === id)).toMatchObject({
        source: 'system',
        lastRun: '',
        lastStatus: '',
        lastError: '',
      })
    }
    expect((await row('__svcDBOptimize__'))?.expression).toBe('0 0 * * *')
  })

  it('records a successful run now: lastRun, lastStatus success, lastError empty', async () => {
    const before = Date.now()
    const res = await t.api('POST', '/api/crons/__svcOTPCleanup__', { token: t.suToken })
    expect(res.status).toBe(204)
    const r = await row('__svcOTPCleanup__')
    expect(r).toMatchObject({ lastStatus: 'success', lastError: '' })
    const ran = Date.parse(r!.lastRun.replace(' ', 'T'))
    expect(ran).toBeGreaterThanOrEqual(before - 1000)
    expect(ran).toBeLessThanOrEqual(Date.now())
  })

  it('records a failing run with its message, then a later success clears it', async () => {
    let fail = true
    t.server.app.cron.add('flaky', '0 0 1 1 *', () => {
      if (fail) throw new Error('disk on fire')
    })
    try {
      expect((await t.api('POST', '/api/crons/flaky', { token: t.suToken })).status).toBe(204)
      expect(await row('flaky')).toMatchObject({
        source: 'system',
        expression: '0 0 1 1 *',
        lastStatus: 'error',
        lastError: 'disk on fire',
      })
      fail = false
      expect((await t.api('POST', '/api/crons/flaky', { token: t.suToken })).status).toBe(204)
      expect(await row('flaky')).toMatchObject({ lastStatus: 'success', lastError: '' })
    } finally {
      t.server.app.cron.remove('flaky')
    }
  })

  it('follows live adds, replacements and removes, with the source given', async () => {
    const app = t.server.app
    // NB: times that do not come during the test (a run would set lastStatus: one with */5
    // did, when the suite reached it at a minute divisible by 5).
    app.cron.add('live', '0 0 1 1 *', () => undefined, { source: 'hooks' })
    await until(async () => (await row('live'))?.source === 'hooks')
    expect(await row('live')).toMatchObject({ expression: '0 0 1 1 *', lastStatus: '' })
    app.cron.add('live', '0 0 2 1 *', () => undefined, { source: 'hooks' })
    await until(async () => (await row('live'))?.expression === '0 0 2 1 *')
    app.cron.remove('live')
    await until(async () => (await row('live')) === undefined)
  })

  it('records scheduled runs too', async () => {
    const app = t.server.app
    let runs = 0
    app.cron.add('every-second', '* * * * * *', () => {
      runs++
      if (runs % 2 === 0) throw new Error(`even run ${runs}`)
    })
    try {
      await until(async () => runs >= 3 && (await row('every-second'))?.lastStatus !== '', 8000)
      const r = (await row('every-second'))!
      expect(['success', 'error']).toContain(r.lastStatus)
      expect(r.lastError).toBe(r.lastStatus === 'error' ? r.lastError : '')
      if (r.lastStatus === 'error') expect(r.lastError).toMatch(/^even run \d+$/)
      expect(r.lastRun).not.toBe('')
    } finally {
      app.cron.remove('every-second')
    }
  })

  it('coalesces changes: 30 jobs added at once are written in one or two transactions', async () => {
    const app = t.server.app
    const transactions = new Set<unknown>()
    const ids = Array.from({ length: 30 }, (_, i) => `bulk${String(i).padStart(2, '0')}`)
    const created = app.hooks.onRecordCreate.bind(
      async (e) => {
        transactions.add(e.app)
        await e.next()
      },
      ['_cron_jobs'],
    )
    try {
      for (const id of ids) app.cron.add(id, '@daily', () => undefined)
      await until(async () => {
        const present = new Set((await rows()).map((r) => r.jobId))
        return ids.every((id) => present.has(id))
      })
      expect(transactions.size).toBeGreaterThanOrEqual(1)
      expect(transactions.size).toBeLessThanOrEqual(2)
    } finally {
      app.hooks.onRecordCreate.unbind(created)
      for (const id of ids) app.cron.remove(id)
    }
    await until(async () => (await rows()).every((r) => !r.jobId.startsWith('bulk')))
  })

  it('puts back rows changed or deleted by other means at its next write', async () => {
    const truncate = await t.api('DELETE', '/api/collections/_cron_jobs/truncate', {
      token: t.suToken,
    })
    expect(truncate.status).toBe(204)
    const edit = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: {
        sql: "INSERT INTO _cron_jobs (id, \"jobId\", expression, source) VALUES ('fakecronjob0001', 'ghost', '@daily', 'system')",
        write: true,
      },
    })
    expect(edit.status).toBe(200)
    expect((await rows()).map((r) => r.jobId)).toEqual(['ghost'])
    expect((await t.api('POST', '/api/crons/__svcMFACleanup__', { token: t.suToken })).status).toBe(
      204,
    )
    const all = await rows()
    expect(all.map((r) => r.jobId)).toEqual(t.server.app.cron.list().map((j) => j.id))
    expect(all.find((r) => r.jobId === '__svcMFACleanup__')?.lastStatus).toBe('success')
  })

  it('refuses writes through the records API, even for superusers (and in a batch)', async () => {
    const existing = (await row('__svcDBOptimize__'))!
    const message =
      'The _cron_jobs records mirror the scheduler and cannot be changed through the records API.'
    const create = await t.api('POST', '/api/collections/_cron_jobs/records', {
      token: t.suToken,
      body: { jobId: 'fake', expression: '* * * * *', source: 'system' },
    })
    expect(create.status).toBe(403)
    expect(create.body.message).toBe(message)
    const update = await t.api('PATCH', `/api/collections/_cron_jobs/records/${existing.id}`, {
      token: t.suToken,
      body: { expression: '* * * * *' },
    })
    expect(update.status).toBe(403)
    expect(update.body.message).toBe(message)
    const del = await t.api('DELETE', `/api/collections/_cron_jobs/records/${existing.id}`, {
      token: t.suToken,
    })
    expect(del.status).toBe(403)
    const guest = await t.api('POST', '/api/collections/_cron_jobs/records', {
      body: { jobId: 'fake' },
    })
    expect(guest.status).toBe(403)
    await t.api('PATCH', '/api/settings', { token: t.suToken, body: { batch: { enabled: true } } })
    const batch = await t.api('POST', '/api/batch', {
      token: t.suToken,
      body: {
        requests: [
          { method: 'POST', url: '/api/collections/_cron_jobs/records', body: { jobId: 'x' } },
        ],
      },
    })
    expect(batch.status).toBe(400)
    expect(JSON.stringify(batch.body)).toContain(message)
    expect(await row('__svcDBOptimize__')).toEqual(existing)
    expect(await row('fake')).toBeUndefined()
    expect(await row('x')).toBeUndefined()
  })
})

describe('_cron_jobs across a restart', () => {
  const dirs: string[] = []
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('drops the rows of jobs no longer registered and keeps the outcome of the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-cron-jobs-'))
    dirs.push(dir)
    const first = await createServer({ dataDir: dir, logger: silentLogger })
    first.app.cron.add('gone-after-restart', '@daily', () => undefined)
    await first.app.cron.runNow('__svcOTPCleanup__')
    await first.app.services.get('crons').flush()
    const before = await first.app.db.all<Row>(
      sql`SELECT "jobId", "lastStatus", "lastRun" FROM _cron_jobs ORDER BY "jobId"`,
    )
    expect(before.map((r) => r.jobId)).toContain('gone-after-restart')
    await first.close()

    const second = await createServer({ dataDir: dir, logger: silentLogger })
    try {
      const after = await second.app.db.all<Row>(
        sql`SELECT "jobId", "lastStatus", "lastRun" FROM _cron_jobs ORDER BY "jobId"`,
      )
      expect(after.map((r) => r.jobId)).toEqual(second.app.cron.list().map((j) => j.id))
      expect(after.map((r) => r.jobId)).not.toContain('gone-after-restart')
      const otp = after.find((r) => r.jobId === '__svcOTPCleanup__')
      expect(otp).toEqual(before.find((r) => r.jobId === '__svcOTPCleanup__'))
      expect(otp?.lastStatus).toBe('success')
    } finally {
      await second.close()
    }
  })
})
