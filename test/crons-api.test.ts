/**
 * The crons API (reference §7, issue 13 part 3): the list, run-now with its effect on the data,
 * unknown ids, a job already running, auth, and the system jobs that are always present.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from '../src/store/sql.js'
import { formatDate } from '../src/tools/dates.js'
import { startServer, SU_EMAIL, SU_PASSWORD, type TestServer } from './helpers/server.js'

const SYSTEM_JOBS = [
  { id: '__svcAuditCleanup__', expression: '0 * * * *' },
  { id: '__svcDBOptimize__', expression: '0 0 * * *' },
  { id: '__svcLogsCleanup__', expression: '0 * * * *' },
  { id: '__svcMFACleanup__', expression: '0 * * * *' },
  { id: '__svcOTPCleanup__', expression: '0 * * * *' },
]

describe('crons API', () => {
  let t: TestServer
  let userToken: string
  let usersId: string
  beforeAll(async () => {
    t = await startServer()
    const users = await t.api('GET', '/api/collections/users', { token: t.suToken })
    usersId = users.body.id
    await t.api('POST', '/api/collections/users/records', {
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    userToken = login.body.token
  })
  afterAll(() => t.close())

  it('lists {id, expression}: other jobs first by id, then svcbase own jobs by id', async () => {
    t.server.app.cron.add('zeta', '*/5 * * * *', () => undefined)
    t.server.app.cron.add('alpha', '@daily', () => undefined)
    try {
      const res = await t.api('GET', '/api/crons', { token: t.suToken })
      expect(res.status).toBe(200)
      const ids = res.body.map((j: { id: string }) => j.id)
      expect(ids.slice(0, 2)).toEqual(['alpha', 'zeta'])
      expect(res.body[0]).toEqual({ id: 'alpha', expression: '@daily' })
      const own = res.body.filter((j: { id: string }) => j.id.startsWith('__svc'))
      expect(own).toEqual(expect.arrayContaining(SYSTEM_JOBS))
      expect(ids.slice(2)).toEqual([...ids.slice(2)].sort())
      expect(ids.slice(2).every((id: string) => id.startsWith('__svc'))).toBe(true)
      for (const job of res.body) expect(Object.keys(job)).toEqual(['id', 'expression'])
    } finally {
      t.server.app.cron.remove('zeta')
      t.server.app.cron.remove('alpha')
    }
  })

  it('works with the pocketbase SDK: pb.crons.getFullList() and pb.crons.run(id)', async () => {
    const pb = new PocketBase(t.url)
    await pb.collection('_superusers').authWithPassword(SU_EMAIL, SU_PASSWORD)
    const jobs = await pb.crons.getFullList()
    expect(jobs).toEqual(expect.arrayContaining(SYSTEM_JOBS))
    expect(await pb.crons.run('__svcMFACleanup__')).toBe(true)
    await expect(pb.crons.run('nope')).rejects.toMatchObject({ status: 404 })
  })

  it('is for superusers only: 401 without a token, 403 for a user', async () => {
    for (const [method, path] of [
      ['GET', '/api/crons'],
      ['POST', '/api/crons/__svcOTPCleanup__'],
    ] as const) {
      const guest = await t.api(method, path)
      expect(guest.status, `${method} ${path}`).toBe(401)
      const user = await t.api(method, path, { token: userToken })
      expect(user.status, `${method} ${path}`).toBe(403)
    }
  })

  it('answers 404 with a precise message for an unknown job', async () => {
    const res = await t.api('POST', '/api/crons/nope', { token: t.suToken })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({
      code: 404,
      status: 404,
      message: 'Missing or invalid cron job.',
      data: {},
    })
  })

  it('runs __svcOTPCleanup__ now: 204 and the expired OTP rows are gone, fresh ones kept', async () => {
    const app = t.server.app
    const user = await app.db.get<{ id: string }>(sql`SELECT id FROM users LIMIT 1`)
    const old = formatDate(new Date(Date.now() - 3600_000)) // users' otp.duration is 180 s
    const fresh = formatDate(new Date())
    const insert = (id: string, created: string, collectionRef = usersId) =>
      app.db.run(
        sql`INSERT INTO _otps (id, "collectionRef", "recordRef", password, "sentTo", created, updated) VALUES (${id}, ${collectionRef}, ${user!.id}, 'x', '', ${created}, ${created})`,
      )
    await insert('otpexpired00001', old)
    await insert('otpfresh0000001', fresh)
    await insert('otporphan000001', fresh, 'pbc_gone')
    const res = await t.api('POST', '/api/crons/__svcOTPCleanup__', { token: t.suToken })
    expect(res.status).toBe(204)
    expect(res.body).toBeNull()
    const left = await app.db.all<{ id: string }>(sql`SELECT id FROM _otps ORDER BY id`)
    expect(left.map((r) => r.id)).toEqual(['otpfresh0000001'])
  })

  it('runs __svcMFACleanup__ now: the expired MFA rows are gone', async () => {
    const app = t.server.app
    const user = await app.db.get<{ id: string }>(sql`SELECT id FROM users LIMIT 1`)
    const old = formatDate(new Date(Date.now() - 3600_000)) // users' mfa.duration is 600 s
    const recent = formatDate(new Date(Date.now() - 60_000))
    for (const [id, created] of [
      ['mfaexpired00001', old],
      ['mfarecent000001', recent],
    ]) {
      await app.db.run(
        sql`INSERT INTO _mfas (id, "collectionRef", "recordRef", method, created, updated) VALUES (${id}, ${usersId}, ${user!.id}, 'password', ${created}, ${created})`,
      )
    }
    const res = await t.api('POST', '/api/crons/__svcMFACleanup__', { token: t.suToken })
    expect(res.status).toBe(204)
    const left = await app.db.all<{ id: string }>(sql`SELECT id FROM _mfas ORDER BY id`)
    expect(left.map((r) => r.id)).toEqual(['mfarecent000001'])
  })

  it('runs __svcDBOptimize__ now: the WAL is checkpointed and emptied', async () => {
    const notes = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'notes', type: 'base', fields: [{ name: 'text', type: 'text' }] },
    })
    expect(notes.status).toBe(200)
    for (let i = 0; i < 40; i++) {
      await t.api('POST', '/api/collections/notes/records', {
        token: t.suToken,
        body: { text: `note ${i} `.repeat(200) },
      })
    }
    // On PostgreSQL there is no WAL file of ours: the job runs ANALYZE (docs/crons.md).
    const onPostgres = Boolean(process.env.SVC_DATABASE_URL)
    const wal = join(t.dir, 'data.db-wal')
    if (!onPostgres) expect(statSync(wal).size).toBeGreaterThan(64 * 4096)
    const res = await t.api('POST', '/api/crons/__svcDBOptimize__', { token: t.suToken })
    expect(res.status).toBe(204)
    // Emptied by the checkpoint; what is left is the `_cron_jobs` row of this run, written after.
    if (!onPostgres) expect(statSync(wal).size).toBeLessThan(8 * 4096)
    // The data is all there, read through the API.
    const list = await t.api('GET', '/api/collections/notes/records', { token: t.suToken })
    expect(list.body.totalItems).toBe(40)
  })

  it('answers 409 while a run of the job is going, and runs it again once it ended', async () => {
    let open!: () => void
    let runs = 0
    t.server.app.cron.add('slow', '0 0 1 1 *', async () => {
      runs++
      await new Promise<void>((resolve) => (open = resolve))
    })
    try {
      const first = t.api('POST', '/api/crons/slow', { token: t.suToken })
      while (runs === 0) await new Promise((resolve) => setTimeout(resolve, 10))
      const second = await t.api('POST', '/api/crons/slow', { token: t.suToken })
      expect(second.status).toBe(409)
      expect(second.body.message).toBe(
        'The cron job slow is already running; try again once it has finished.',
      )
      open()
      expect((await first).status).toBe(204)
      const again = t.api('POST', '/api/crons/slow', { token: t.suToken })
      while (runs === 1) await new Promise((resolve) => setTimeout(resolve, 10))
      open()
      expect((await again).status).toBe(204)
      expect(runs).toBe(2)
    } finally {
      t.server.app.cron.remove('slow')
    }
  })

  it('gives 204 for a failing job too (the failure is in _cron_jobs)', async () => {
    t.server.app.cron.add('fails', '0 0 1 1 *', () => {
      throw new Error('boom')
    })
    try {
      const res = await t.api('POST', '/api/crons/fails', { token: t.suToken })
      expect(res.status).toBe(204)
    } finally {
      t.server.app.cron.remove('fails')
    }
  })
})

describe('crons feature switched off', () => {
  it('has no crons routes and no system jobs of its own', async () => {
    const { createServer } = await import('../src/server.js')
    const { silentLogger } = await import('../src/core/logger.js')
    const { mkdtempSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-crons-off-'))
    const server = await createServer(
      { dataDir: dir, logger: silentLogger },
      { disable: ['crons'] },
    )
    try {
      const res = await server.http.inject({ method: 'GET', url: '/api/crons' })
      expect(res.statusCode).toBe(404)
      const ids = server.app.cron.list().map((j) => j.id)
      expect(ids).not.toContain('__svcDBOptimize__')
      expect(ids).toContain('__svcLogsCleanup__')
    } finally {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
