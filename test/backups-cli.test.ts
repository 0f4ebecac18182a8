/**
 * Restore through the real CLI as a child process (SPEC §4.9 rule 3): `svcbase serve` restores a
 * backup and restarts in the same process (same PID, same port), an open SSE connection is
 * dropped, the data is the snapshot's, and SIGTERM still stops it after the restart. Also the
 * composition root's restart on its own: when the new app fails to start, the old data is put
 * back and served again.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SVCBASE_READY } from '../bench/servers.js'
import { silentLogger } from '../src/core/logger.js'
import { createServer } from '../src/server.js'
import { seedPosts, titles, until } from './helpers/backups.js'
import { startServer, type TestServer } from './helpers/server.js'
import { onPostgres, otherConnection } from './helpers/other-connection.js'
import { dirSchema } from '../src/core/store-choice.js'

const CLI = ['--import', 'tsx', 'src/cli.ts']
const root = mkdtempSync(join(tmpdir(), 'svcbase-backups-cli-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Runs the CLI to its end. */
function runCli(args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { stdio: 'ignore' })
    child.once('exit', (code) => resolve(code))
  })
}

describe('restore through the CLI', () => {
  it('restarts in the same process on the same port with the snapshot, SSE dropped', async () => {
    const dir = join(root, 'data')
    expect(
      await runCli(['superuser', 'create', 'admin@example.com', 'supersecret123', `--dir=${dir}`]),
    ).toBe(0)
    const child: ChildProcess = spawn(
      process.execPath,
      [...CLI, 'serve', '--http=127.0.0.1:0', `--dir=${dir}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    let err = ''
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    let exited = false
    child.once('exit', () => (exited = true))
    try {
      await until(() => SVCBASE_READY.test(out) || exited, 30_000)
      expect(exited, err).toBe(false)
      const url = SVCBASE_READY.exec(out)![1]!
      const login = await fetch(`${url}/api/collections/_superusers/auth-with-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identity: 'admin@example.com', password: 'supersecret123' }),
      })
      const suToken = ((await login.json()) as { token: string }).token
      // The test helpers' shape over this child's URL.
      const t = {
        url,
        suToken,
        api: async (method: string, path: string, opts: any = {}) => {
          const headers: Record<string, string> = {}
          if (opts.token) headers.authorization = `Bearer ${opts.token}`
          let body: any
          if (opts.raw !== undefined) body = opts.raw
          else if (opts.body !== undefined) {
            headers['content-type'] = 'application/json'
            body = JSON.stringify(opts.body)
          }
          const res = await fetch(`${url}${path}`, { method, headers, body })
          const text = await res.text()
          return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers }
        },
      } as unknown as TestServer
      await seedPosts(t, 3)
      const backup = await t.api('POST', '/api/backups', {
        token: suToken,
        body: { name: 'snap.zip' },
      })
      expect(backup.status).toBe(204)
      await t.api('POST', '/api/collections/posts/records', { body: { title: 'later' } })
      expect(await titles(t)).toEqual(['later', 'p1', 'p2', 'p3'])

      const sse = await fetch(`${url}/api/realtime`)
      const reader = sse.body!.getReader()
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('SVC_CONNECT')
      const ended = (async () => {
        for (;;) {
          const { done } = await reader.read().catch(() => ({ done: true }))
          if (done) return true
        }
      })()

      const pid = child.pid
      const res = await t.api('POST', '/api/backups/snap.zip/restore', { token: suToken })
      expect(res.status).toBe(204)
      expect(await ended).toBe(true)
      await until(() => out.includes('restarted in process'), 30_000).catch((e: Error) => {
        throw new Error(`${e.message}\n${out}\n${err}`)
      })
      expect(out).toContain(`svcbase restarted in process ${pid}, serving the restored data`)
      expect(exited).toBe(false)
      expect(child.pid).toBe(pid)
      // The same port answers, with the snapshot's data.
      await until(async () => (await fetch(`${url}/api/health`).catch(() => null))?.ok === true)
      expect(await titles(t)).toEqual(['p1', 'p2', 'p3'])
      expect(err).not.toMatch(/error/i)

      // SIGTERM still stops the restarted server.
      const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
      child.kill('SIGTERM')
      expect(await exit).toBe(0)
    } finally {
      if (!exited) child.kill('SIGKILL')
    }
  }, 90_000)
})

describe('Server.restart', () => {
  let t: TestServer
  afterAll(() => t?.close())

  it('listens again where the server listened, also when it listened through http.listen', async () => {
    const dir = join(root, 'direct')
    const server = await createServer({ dataDir: dir, logger: silentLogger })
    try {
      const url = await server.http.listen({ host: '127.0.0.1', port: 0 })
      const first = server.http
      await server.restart()
      expect(server.http).not.toBe(first)
      expect((await fetch(`${url}/api/health`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('puts the old data back and serves it when the new app fails to start', async () => {
    t = await startServer()
    await seedPosts(t, 2)
    const oldApp = t.server.app
    const dir = t.dir
    let undone = false
    let finished = false
    const failure = t.server.restart(async () => {
      if (onPostgres) {
        // The "restored" schema holds a _collections table the new app cannot read.
        const schema = dirSchema(dir)
        const db = await otherConnection(dir)
        await db.run(`ALTER SCHEMA "${schema}" RENAME TO "${schema}_aside"`)
        await db.run(`CREATE SCHEMA "${schema}"`)
        await db.run(`CREATE TABLE "${schema}"._collections (id TEXT PRIMARY KEY)`)
        await db.run(`INSERT INTO "${schema}"._collections VALUES ('broken')`)
        await db.close()
        return {
          async undo() {
            undone = true
            const again = await otherConnection(dir)
            await again.run(`DROP SCHEMA "${schema}" CASCADE`)
            await again.run(`ALTER SCHEMA "${schema}_aside" RENAME TO "${schema}"`)
            await again.close()
          },
          async done() {
            finished = true
          },
        }
      }
      // The "restored" data is not a database: the new app cannot start on it.
      const { renameSync } = await import('node:fs')
      renameSync(join(dir, 'data.db'), join(dir, 'data.db.aside'))
      writeFileSync(join(dir, 'data.db'), 'not a database, the new app fails to open it')
      return {
        async undo() {
          undone = true
          rmSync(join(dir, 'data.db'))
          for (const f of ['-wal', '-shm']) rmSync(join(dir, `data.db${f}`), { force: true })
          renameSync(join(dir, 'data.db.aside'), join(dir, 'data.db'))
        },
        async done() {
          finished = true
        },
      }
    })
    await expect(failure).rejects.toThrow()
    expect(undone).toBe(true)
    expect(finished).toBe(false)
    expect(t.server.app).not.toBe(oldApp)
    expect(t.server.app.isBootstrapped).toBe(true)
    expect(await titles(t)).toEqual(['p1', 'p2'])
  })
})
