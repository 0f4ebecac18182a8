/**
 * Jobs of hook scripts in the crons API and `_cron_jobs` (issue 13 part 3): both script forms
 * add jobs with source `hooks`, run-now records their outcome, and a `--dev` reload that drops
 * a job removes its row live.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

/** Polls `fn` until it returns true (up to 5 s). */
async function eventually(fn: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 5000
  while (Date.now() < end) {
    if (await fn()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error('condition not met within 5 s')
}

describe('hook script jobs in _cron_jobs', () => {
  let t: HooksServer
  beforeAll(async () => {
    t = await startHooksServer(
      {
        'jobs.js': `export default (app) => {
  app.cronAdd('scriptOk', '*/10 * * * *', () => {})
  app.cronAdd('scriptFails', '@daily', () => { throw new Error('script says no') })
}
`,
        'legacy.pb.js': `cronAdd("pbJob", "0 3 * * *", () => {})\n`,
      },
      { dev: true },
    )
  })
  afterAll(() => t.close())

  const row = async (jobId: string) => {
    const res = await t.api('GET', `/api/collections/_cron_jobs/records?filter=jobId="${jobId}"`, {
      token: t.suToken,
    })
    return res.body.items[0]
  }

  it('lists script jobs before svcbase own and mirrors them with source hooks', async () => {
    const list = await t.api('GET', '/api/crons', { token: t.suToken })
    expect(list.body.slice(0, 3)).toEqual([
      { id: 'pbJob', expression: '0 3 * * *' },
      { id: 'scriptFails', expression: '@daily' },
      { id: 'scriptOk', expression: '*/10 * * * *' },
    ])
    for (const id of ['pbJob', 'scriptFails', 'scriptOk']) {
      expect(await row(id)).toMatchObject({ jobId: id, source: 'hooks', lastStatus: '' })
    }
    expect(await row('__svcDBOptimize__')).toMatchObject({ source: 'system' })
  })

  it('records the outcome of a script job run now', async () => {
    expect((await t.api('POST', '/api/crons/scriptOk', { token: t.suToken })).status).toBe(204)
    expect(await row('scriptOk')).toMatchObject({ lastStatus: 'success', lastError: '' })
    expect((await t.api('POST', '/api/crons/scriptFails', { token: t.suToken })).status).toBe(204)
    expect(await row('scriptFails')).toMatchObject({
      lastStatus: 'error',
      lastError: 'script says no',
    })
  })

  it('drops the row of a job a --dev reload removed, and adds the new one', async () => {
    t.write(
      'jobs.js',
      `export default (app) => {\n  app.cronAdd('scriptOk', '*/15 * * * *', () => {})\n  app.cronAdd('scriptNew', '@hourly', () => {})\n}\n`,
    )
    await eventually(async () => (await row('scriptFails')) === undefined)
    await eventually(async () => (await row('scriptNew')) !== undefined)
    await eventually(async () => (await row('scriptOk'))?.expression === '*/15 * * * *')
    expect(await row('scriptNew')).toMatchObject({ source: 'hooks', expression: '@hourly' })
    // The outcome of a job that is still there is kept across the reload.
    expect(await row('scriptOk')).toMatchObject({ lastStatus: 'success' })
  })
})
