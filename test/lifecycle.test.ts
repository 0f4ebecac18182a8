import { mkdtempSync, rmSync } from 'node:fs'
import { get, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { App } from '../src/core/app.js'
import { manageSuperuser } from '../src/core/auth/superusers.js'
import { newApp } from '../src/core/create-app.js'
import { silentLogger } from '../src/core/logger.js'
import { createServer, type Server } from '../src/server.js'
import { sql } from '../src/store/sql.js'
import { bcryptPool } from '../src/tools/bcrypt-pool.js'
import {
  activeResources,
  moreResourcesThan,
  openFilesUnder,
  settle,
  trackHandles,
} from './helpers/leaks.js'

const CYCLES = 20
const EMAIL = 'root@example.com'
const PASSWORD = 'lifecycle-pass-1'

const dirs: string[] = []
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-lifecycle-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Opens a realtime stream over a real socket; resolves once `SVC_CONNECT` arrived. */
function openStream(url: string): Promise<{ res: IncomingMessage; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/api/realtime`, { agent: false }, (res) => {
      const ended = new Promise<void>((done) => res.once('close', done))
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
        if (text.includes('event:SVC_CONNECT')) resolve({ res, ended })
      })
    })
    req.once('error', reject)
  })
}

/** Exercises what starts background work: a write, a bcrypt sign-in, request logs, a cron run. */
async function exercise(server: Server, n: number): Promise<void> {
  const { app, http } = server
  const login = await http.inject({
    method: 'POST',
    url: '/api/collections/_superusers/auth-with-password',
    payload: { identity: EMAIL, password: PASSWORD },
  })
  expect(login.statusCode).toBe(200)
  const token = String(login.json<{ token: string }>().token)
  const created = await http.inject({
    method: 'POST',
    url: '/api/collections/notes/records',
    headers: { authorization: token },
    payload: { title: `note ${n}` },
  })
  expect(created.statusCode).toBe(200)
  await app.services.get('logs').flush()
  expect(await app.cron.runNow('__svcLogsCleanup__')).toBe(true)
}

/** Creates the collection `exercise` writes to. */
async function createNotes(app: App): Promise<void> {
  await app.collections.create({
    name: 'notes',
    type: 'base',
    createRule: '',
    fields: [{ name: 'title', type: 'text' }],
  })
}

/** Asserts nothing the app started is still running or open. */
async function expectNothingLeft(
  tracker: ReturnType<typeof trackHandles>,
  before: Record<string, number>,
  dir: string,
): Promise<void> {
  // NB: a closed handle leaves the active list on a later turn of the event loop.
  await settle(
    () => tracker.live().length === 0 && Object.keys(moreResourcesThan(before)).length === 0,
  )
  expect(tracker.live().map((h) => `${h.type}\n${h.stack}`)).toEqual([])
  expect(moreResourcesThan(before)).toEqual({})
  expect(openFilesUnder(dir)).toEqual([])
  expect(bcryptPool.running).toBe(0)
}

describe('app lifecycle', () => {
  it('runs onBootstrap, onServe and onTerminate around their built-in actions', async () => {
    const app = newApp({ dataDir: dataDir(), logger: silentLogger })
    const seen: string[] = []
    app.hooks.onBootstrap.bind(async (e) => {
      seen.push(`bootstrap: before, open=${e.app.isBootstrapped}`)
      await e.next()
      const row = await e.app.db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM _collections`)
      seen.push(`bootstrap: after, open=${e.app.isBootstrapped}, collections=${row!.n > 0}`)
    })
    app.hooks.onServe.bind(async (e) => {
      seen.push(`serve: before, cron=${e.app.cron.started}`)
      await e.next()
      seen.push(`serve: after, cron=${e.app.cron.started}`)
    })
    app.hooks.onTerminate.bind(async (e) => {
      // Still open here: a feature can flush what it holds.
      await e.app.db.get(sql`SELECT 1`)
      seen.push(`terminate: before, restart=${e.isRestart}, open=${e.app.isBootstrapped}`)
      await e.next()
      seen.push(`terminate: after, open=${e.app.isBootstrapped}, cron=${e.app.cron.started}`)
    })
    await expect(app.serve()).rejects.toThrow(/not bootstrapped/)
    expect(() => app.db).toThrow(/not bootstrapped/)
    await app.bootstrap()
    await app.serve()
    await app.serve() // already serving: nothing runs twice
    await app.bootstrap() // a bootstrapped app restarts
    await app.close()
    await app.close() // idempotent
    expect(() => app.settings).toThrow(/not bootstrapped/)
    expect(seen).toEqual([
      'bootstrap: before, open=false',
      'bootstrap: after, open=true, collections=true',
      'serve: before, cron=false',
      'serve: after, cron=true',
      'terminate: before, restart=true, open=true',
      'terminate: after, open=false, cron=false',
      'bootstrap: before, open=false',
      'bootstrap: after, open=true, collections=true',
      'terminate: before, restart=false, open=true',
      'terminate: after, open=false, cron=false',
    ])
  })

  it('refuses lifecycle calls from inside a transaction', async () => {
    const app = newApp({ dataDir: dataDir(), logger: silentLogger })
    await app.bootstrap()
    await app.runInTransaction(async (tx) => {
      await expect(tx.terminate()).rejects.toThrow(
        'cannot terminate an app from inside a transaction',
      )
      await expect(tx.bootstrap()).rejects.toThrow(/inside a transaction/)
      await expect(tx.serve()).rejects.toThrow(/inside a transaction/)
    })
    expect(app.isBootstrapped).toBe(true)
    await app.close()
  })

  it(`restarts one served app in-process ${CYCLES} times, leaving nothing running`, async () => {
    const dir = dataDir()
    const before = activeResources()
    const tracker = trackHandles()
    try {
      const server = await createServer({ dataDir: dir, logger: silentLogger })
      const url = await server.http.listen({ host: '127.0.0.1', port: 0 })
      const { app } = server
      await manageSuperuser(app, 'create', EMAIL, PASSWORD)
      await createNotes(app)
      const openFiles = new Set<number>()
      for (let i = 0; i < CYCLES; i++) {
        const stream = await openStream(url)
        await exercise(server, i)
        openFiles.add(openFilesUnder(dir).length)
        await app.bootstrap() // terminate (as a restart), then open again
        await stream.ended // terminating ended the stream
        expect(await app.services.get('messenger').sendToClient('x', 'e', {})).toBe(false)
        await app.serve()
        expect(app.cron.started).toBe(true)
        const row = await app.db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM notes`)
        expect(row?.n).toBe(i + 1)
      }
      // The same files each time: nothing opened by a cycle outlives it.
      expect([...openFiles]).toHaveLength(1)
      const logged = await app.auxDb.get<{ n: number }>(
        sql`SELECT COUNT(*) AS n FROM _logs WHERE message LIKE 'POST /api/collections/notes/records%'`,
      )
      expect(logged?.n).toBe(CYCLES)
      await server.close()
      expect(app.isBootstrapped).toBe(false)
      await expectNothingLeft(tracker, before, dir)
    } finally {
      tracker.stop()
    }
  })

  it(`starts and stops a composed server ${CYCLES} times on one data dir, leaving nothing running`, async () => {
    const dir = dataDir()
    const before = activeResources()
    const tracker = trackHandles()
    try {
      for (let i = 0; i < CYCLES; i++) {
        const server = await createServer({ dataDir: dir, logger: silentLogger })
        const url = await server.http.listen({ host: '127.0.0.1', port: 0 })
        if (i === 0) {
          await manageSuperuser(server.app, 'create', EMAIL, PASSWORD)
          await createNotes(server.app)
        }
        const stream = await openStream(url)
        await exercise(server, i)
        expect(server.app.cron.list().map((j) => j.id)).toContain('__svcLogsCleanup__')
        await server.close()
        await stream.ended
        expect(openFilesUnder(dir)).toEqual([])
      }
      await expectNothingLeft(tracker, before, dir)
    } finally {
      tracker.stop()
    }
  })
})
