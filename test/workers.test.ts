/**
 * `serve --workers 2` (issue 17 part 5): the real CLI as a child process, its two workers
 * sharing the port (Node's round robin hands each new connection to the next worker) and one
 * SQLite data folder. Every request here opens its own connection, so consecutive requests land
 * on both workers. A hook script adds `GET /api/pid` (the worker's pid: the test's own route, not
 * the product's), stamps each `notes` record with the pid of the worker that created it, and
 * runs a job every second writing a `ticks` record.
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process'
import { Agent, request } from 'node:http'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EventSource } from 'eventsource'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, startWorkersCli } from './helpers/workers-cli.js'

const HOOK = `
export default (app) => {
  app.routerAdd('GET', '/api/pid', (e) => e.json(200, { pid: process.pid }))
  app.routerAdd('GET', '/api/state', (e) =>
    e.json(200, { pid: process.pid, appName: app.settings.get().meta.appName }),
  )
  app.onRecordCreate('notes', async (e) => {
    e.record.pid = process.pid
    await e.next()
  })
  app.cronAdd('tick', '* * * * * *', async () => {
    const ticks = app.collections.find('ticks')
    if (!ticks) return
    const at = new Date()
    at.setMilliseconds(0)
    await app.records.create(ticks, { at: at.toISOString(), pid: process.pid }, app.internalRequest())
  })
}
`

interface Answer {
  status: number
  body: any
}

let url = ''
let child: ChildProcess
let output = () => ''
let suToken = ''
const root = mkdtempSync(join(tmpdir(), 'svcbase-workers-'))

/** One request on a connection of its own (so the next one may reach the other worker). */
function call(
  method: string,
  path: string,
  opts: { body?: unknown; token?: string; timeoutMs?: number; agent?: Agent } = {},
) {
  return new Promise<Answer>((resolve, reject) => {
    const data = opts.body === undefined ? undefined : JSON.stringify(opts.body)
    const req = request(
      `${url}${path}`,
      {
        method,
        agent: opts.agent ?? false,
        headers: {
          ...(data ? { 'content-type': 'application/json' } : {}),
          ...(opts.token ? { authorization: opts.token } : {}),
        },
      },
      (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }),
        )
      },
    )
    req.on('error', reject)
    req.setTimeout(opts.timeoutMs ?? 0, () => req.destroy(new Error('no answer')))
    req.end(data)
  })
}

/** The pids of the primary's node children now (tsx's esbuild service is one of its children too). */
function childPids(primary: number): number[] {
  const text = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(primary)], {
    encoding: 'utf8',
  })
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm === 'node')
    .map(([pid]) => Number(pid))
    .sort()
}

/** The distinct pids that answer `n` requests of `GET /api/pid`. */
async function pidsAnswering(n: number): Promise<Set<number>> {
  const seen = new Set<number>()
  for (let i = 0; i < n; i++) {
    const r = await call('GET', '/api/pid')
    expect(r.status).toBe(200)
    seen.add(r.body.pid as number)
  }
  return seen
}

/**
 * A keep-alive connection held by one worker (Node hands a connection to one worker for its
 * life): `exclude` is a pid it must not be, tried with new connections until one is elsewhere.
 */
async function pinnedAgent(exclude?: number): Promise<{ agent: Agent; pid: number }> {
  for (;;) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const r = await call('GET', '/api/pid', { agent })
    const pid = r.body.pid as number
    if (pid !== exclude) return { agent, pid }
    agent.destroy()
  }
}

const until = async (cond: () => boolean | Promise<boolean>) => {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 50))
}

let workerPids: number[] = []
let primaryPid = 0

beforeAll(async () => {
  const hooks = join(root, 'hooks')
  mkdirSync(hooks)
  writeFileSync(join(hooks, 'pid.js'), HOOK)
  const started = await startWorkersCli(join(root, 'data'), hooks)
  child = started.child
  output = started.output
  url = started.url
  workerPids = started.workerPids
  primaryPid = started.primaryPid
  const token = started.setupToken
  const setup = await call('POST', '/api/setup', {
    body: {
      email: 'admin@example.com',
      password: 'supersecret123',
      passwordConfirm: 'supersecret123',
      token,
    },
  })
  expect(setup.status).toBeLessThan(300)
  const auth = await call('POST', '/api/collections/_superusers/auth-with-password', {
    body: { identity: 'admin@example.com', password: 'supersecret123' },
  })
  suToken = auth.body.token as string
  for (const c of [
    {
      name: 'notes',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'pid', type: 'number' },
      ],
    },
    {
      name: 'ticks',
      fields: [
        { name: 'at', type: 'text' },
        { name: 'pid', type: 'number' },
      ],
    },
  ]) {
    const r = await call('POST', '/api/collections', {
      token: suToken,
      body: { ...c, type: 'base', listRule: '', viewRule: '', createRule: '' },
    })
    expect(r.status).toBe(200)
  }
}, 60_000)

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const workers = childPids(primaryPid)
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    // The primary exits only once its workers did.
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow()
  }
  rmSync(root, { recursive: true, force: true })
})

describe('serve --workers 2', () => {
  it('prints the startup lines once and runs two worker processes that both serve', async () => {
    expect(output().match(/serving http/g)).toHaveLength(1)
    expect(output().match(/setup token/g)).toHaveLength(1)
    expect(childPids(primaryPid)).toEqual(workerPids)
    expect([...(await pidsAnswering(10))].sort()).toEqual(workerPids)
  })

  it('delivers to an SSE client every record created on either worker', async () => {
    const es = new EventSource(`${url}/api/realtime`)
    const ids = new Set<string>()
    let clientId = ''
    es.addEventListener('SVC_CONNECT', (e) => (clientId = JSON.parse(e.data).clientId as string))
    es.addEventListener('notes', (e) => ids.add(JSON.parse(e.data).record.id as string))
    try {
      await until(() => clientId !== '')
      // Several subscription requests: whichever worker gets one, it reaches the stream's.
      for (let i = 0; i < 4; i++) {
        const r = await call('POST', '/api/realtime', {
          body: { clientId, subscriptions: ['notes'] },
        })
        expect(r.status).toBe(204)
      }
      const created: { id: string; pid: number }[] = []
      for (let i = 0; i < 40; i++) {
        const r = await call('POST', '/api/collections/notes/records', { body: { title: `n${i}` } })
        expect(r.status).toBe(200)
        created.push({ id: r.body.id as string, pid: r.body.pid as number })
      }
      expect([...new Set(created.map((c) => c.pid))].sort()).toEqual(workerPids)
      await until(() => created.every((c) => ids.has(c.id)))
      expect(ids.size).toBe(40)
    } finally {
      es.close()
    }
  })

  it('refuses a subscription request for a client no worker holds', async () => {
    for (let i = 0; i < 4; i++) {
      const r = await call('POST', '/api/realtime', {
        body: { clientId: 'nobody', subscriptions: ['notes'] },
      })
      expect(r.status).toBe(404)
    }
  })

  it('stops accepting an old token on every worker once the password changed', async () => {
    const user = await call('POST', '/api/collections/users/records', {
      token: suToken,
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(user.status).toBe(200)
    const auth = await call('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    const old = auth.body.token as string
    for (let i = 0; i < 20; i++)
      expect(
        (await call('POST', '/api/collections/users/auth-refresh', { token: old })).status,
      ).toBe(200)
    const changed = await call('PATCH', `/api/collections/users/records/${user.body.id}`, {
      token: suToken,
      body: { password: 'password456', passwordConfirm: 'password456' },
    })
    expect(changed.status).toBe(200)
    const after = []
    for (let i = 0; i < 20; i++)
      after.push((await call('POST', '/api/collections/users/auth-refresh', { token: old })).status)
    expect(after).toEqual(Array(20).fill(401))
  })

  it('applies a settings or collection change on the other worker before the write answers', async () => {
    // A writes, B reads at once: every time, B already has the change (no wait in between).
    const a = await pinnedAgent()
    const b = await pinnedAgent(a.pid)
    const onA = { token: suToken, agent: a.agent }
    const onB = { token: suToken, agent: b.agent }
    try {
      for (let i = 0; i < 20; i++) {
        const name = `Two workers ${i}`
        const patched = await call('PATCH', '/api/settings', {
          ...onA,
          body: { meta: { appName: name } },
        })
        expect(patched.status).toBe(200)
        expect((await call('GET', '/api/state', onB)).body).toEqual({ pid: b.pid, appName: name })

        const made = await call('POST', '/api/collections', {
          ...onA,
          body: { name: `round${i}`, type: 'base', fields: [{ name: 'n', type: 'number' }] },
        })
        expect(made.status).toBe(200)
        const first = await call('POST', `/api/collections/round${i}/records`, {
          ...onB,
          body: { n: 1 },
        })
        expect(first.status).toBe(200)

        const changed = await call('PATCH', `/api/collections/round${i}`, {
          ...onA,
          body: { fields: [...made.body.fields, { name: 'extra', type: 'text' }] },
        })
        expect(changed.status).toBe(200)
        const second = await call('POST', `/api/collections/round${i}/records`, {
          ...onB,
          body: { n: 2, extra: 'seen' },
        })
        expect(second.status).toBe(200)
        expect(second.body.extra).toBe('seen')

        expect((await call('DELETE', `/api/collections/round${i}`, onA)).status).toBe(204)
        const gone = await call('GET', `/api/collections/round${i}/records`, onB)
        expect(gone.status).toBe(404)

        const imported = await call('PUT', '/api/collections/import', {
          ...onA,
          body: { collections: [{ name: `imported${i}`, type: 'base', createRule: '' }] },
        })
        expect(imported.status).toBe(204)
        const third = await call('POST', `/api/collections/imported${i}/records`, {
          ...onB,
          body: {},
        })
        expect(third.status).toBe(200)
        // Both connections stayed with their workers.
        expect((await call('GET', '/api/state', onA)).body.pid).toBe(a.pid)
        expect((await call('GET', '/api/state', onB)).body.pid).toBe(b.pid)
      }
    } finally {
      a.agent.destroy()
      b.agent.destroy()
    }
  })

  it('runs a scheduled job once per tick across the workers', async () => {
    const list = async () =>
      (await call('GET', '/api/collections/ticks/records?perPage=500&sort=at')).body.items as {
        at: string
      }[]
    await until(async () => (await list()).length >= 4)
    const at = (await list()).map((t) => t.at)
    expect(new Set(at).size).toBe(at.length)
  })

  it('shares a rate limit: the 11th request is refused whichever worker gets it', async () => {
    const on = await call('PATCH', '/api/settings', {
      token: suToken,
      body: {
        rateLimits: {
          enabled: true,
          rules: [{ label: '/api/pid', audience: '', duration: 60, maxRequests: 10 }],
        },
      },
    })
    expect(on.status).toBe(200)
    try {
      const pids = await pidsAnswering(10)
      expect([...pids].sort()).toEqual(workerPids)
      for (let i = 0; i < 4; i++) expect((await call('GET', '/api/pid')).status).toBe(429)
    } finally {
      await call('PATCH', '/api/settings', {
        token: suToken,
        body: { rateLimits: { enabled: false } },
      })
    }
  })

  it('refuses a restore while the other worker shares the data', async () => {
    const made = await call('POST', '/api/backups', { token: suToken, body: { name: 'w.zip' } })
    expect(made.status).toBe(204)
    for (let i = 0; i < 2; i++) {
      const r = await call('POST', '/api/backups/w.zip/restore', { token: suToken })
      expect(r.status).toBe(400)
      expect(r.body.message).toBe(
        'Cannot restore a backup while 2 server processes share this data (serve --workers or several instances): the others would keep serving the old data. Stop them and restore with one process.',
      )
    }
  })

  it('refuses a number of workers out of range', () => {
    for (const n of ['0', '65']) {
      const r = spawnSync(process.execPath, [...CLI, 'serve', `--workers=${n}`], {
        cwd: process.cwd(),
        encoding: 'utf8',
      })
      expect(r.status).toBe(2)
      expect(r.stderr).toContain(`invalid --workers=${n}: expected 1 to 64 processes`)
    }
  })

  it('replaces a worker killed with SIGKILL and loses nothing acknowledged', async () => {
    const victim = workerPids[1]!
    const acked: string[] = []
    let failed = 0
    for (let i = 0; i < 60; i++) {
      if (i === 20) process.kill(victim, 'SIGKILL')
      try {
        const r = await call('POST', '/api/collections/notes/records', {
          body: { title: `k${i}` },
          timeoutMs: 3000,
        })
        if (r.status === 200) acked.push(r.body.id as string)
        else failed++
      } catch {
        // The connection died with the worker, or was handed to it as it died (Node's round
        // robin then drops it: no answer ever comes): not acknowledged.
        failed++
      }
    }
    expect(acked.length + failed).toBe(60)
    // The primary starts another worker; both serve again.
    await until(() => {
      const now = childPids(primaryPid)
      return now.length === 2 && !now.includes(victim)
    })
    const replacement = childPids(primaryPid).find((p) => !workerPids.includes(p))!
    await until(async () => (await pidsAnswering(2)).has(replacement))
    expect(output()).toMatch(
      new RegExp(`\\(pid ${victim}\\) exited \\(SIGKILL\\): starting another`),
    )
    for (const id of acked) {
      const r = await call('GET', `/api/collections/notes/records/${id}`)
      expect(r.status).toBe(200)
    }
  })
})
