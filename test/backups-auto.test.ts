/**
 * The automatic backup job (SPEC §2.7, §8): a non-empty `backups.cron` adds `__svcAutoBackup__`
 * on the scheduler at once, a change of it changes the job and emptying it removes it; each run
 * takes an `@auto_…` archive and keeps only the newest `cronMaxKeep` of them, never deleting
 * archives named by a client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedPosts, until } from './helpers/backups.js'
import { startServer, type TestServer } from './helpers/server.js'

const JOB = '__svcAutoBackup__'

describe('automatic backups', () => {
  let t: TestServer
  const job = () => t.server.app.cron.list().find((j) => j.id === JOB)
  const keys = async (): Promise<string[]> =>
    (await t.api('GET', '/api/backups', { token: t.suToken })).body.map((b: any) => b.key)
  const patch = (backups: Record<string, unknown>) =>
    t.api('PATCH', '/api/settings', { token: t.suToken, body: { backups } })

  beforeAll(async () => {
    t = await startServer()
    await seedPosts(t, 3)
  })
  afterAll(() => t.close())

  it('has no job while backups.cron is empty', () => {
    expect(job()).toBeUndefined()
  })

  it('adds the job live when backups.cron is set, and follows a change of it', async () => {
    expect((await patch({ cron: '0 3 * * *', cronMaxKeep: 2 })).status).toBe(200)
    await until(() => job()?.expression === '0 3 * * *')
    expect(job()!.source).toBe('system')
    expect((await patch({ cron: '30 4 * * 1' })).status).toBe(200)
    await until(() => job()?.expression === '30 4 * * 1')
    const listed = await t.api('GET', '/api/crons', { token: t.suToken })
    expect(listed.body).toContainEqual({ id: JOB, expression: '30 4 * * 1' })
  })

  it('keeps the newest cronMaxKeep automatic archives and never a client-named one', async () => {
    expect(
      (await t.api('POST', '/api/backups', { token: t.suToken, body: { name: 'manual.zip' } }))
        .status,
    ).toBe(204)
    const autos: string[][] = []
    for (let i = 0; i < 4; i++) {
      expect(await t.server.app.cron.runNow(JOB)).toBe(true)
      autos.push((await keys()).filter((k) => k.startsWith('@auto_svc_backup_')))
    }
    // The first run keeps 1, the second 2, then it rotates at 2.
    expect(autos.map((a) => a.length)).toEqual([1, 2, 2, 2])
    for (const a of autos) for (const k of a) expect(k).toMatch(/^@auto_svc_backup_\d{17}\.zip$/)
    // The newest two are the ones the 3rd and 4th runs made, newest first.
    const made = autos.map((a, i) => a.find((k) => i === 0 || !autos[i - 1]!.includes(k))!)
    expect(new Set(made).size).toBe(4)
    const last = autos[3]!
    expect(last).toEqual([made[3], made[2]])
    expect(await keys()).toContain('manual.zip')
    // Through the crons API as well (run now → 204), still two automatic archives.
    const run = await t.api('POST', `/api/crons/${JOB}`, { token: t.suToken })
    expect(run.status).toBe(204)
    const after = (await keys()).filter((k) => k.startsWith('@auto_'))
    expect(after).toHaveLength(2)
    expect(after).not.toEqual(last)
    expect((await keys()).length).toBe(3)
    // The scheduler's mirror records the job's runs.
    const row = await t.api(
      'GET',
      `/api/collections/_cron_jobs/records?filter=${encodeURIComponent(`jobId="${JOB}"`)}`,
      { token: t.suToken },
    )
    expect(row.status).toBe(200)
    expect(row.body.items[0]).toMatchObject({ jobId: JOB, source: 'system', lastError: '' })
  })

  it('removes the job when backups.cron is emptied', async () => {
    expect((await patch({ cron: '' })).status).toBe(200)
    await until(() => job() === undefined)
    const listed = await t.api('GET', '/api/crons', { token: t.suToken })
    expect(listed.body.map((j: any) => j.id)).not.toContain(JOB)
  })
})
