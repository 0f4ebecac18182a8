import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SVCBASE_READY } from '../bench/servers.js'
import { waitFor } from './helpers/webhook-receiver.js'

/**
 * PocketBase's own benchmark opens a new connection per request, up to 1 300 at once from one
 * address (1 000 lists with 300 updates beside them), and PocketBase answers every one. So must
 * svcbase: the kernel queues that many before the server accepts them (`LISTEN_BACKLOG`: with
 * Node's default of 511 the rest waited for SYN retransmits, a second and more), and the
 * per-address cap (`connections.maxConnectionsPerIP`) is above it by default. The server runs as a
 * child process, so it can be paused while the connections arrive, as a busy server is.
 */
describe('a burst of new connections from one address', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-burst-'))
  let child: ChildProcess
  let url: URL

  beforeAll(async () => {
    child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'serve', '--http=127.0.0.1:0', `--dir=${dir}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    await waitFor(() => SVCBASE_READY.test(out), 30_000)
    url = new URL(SVCBASE_READY.exec(out)![1]!)
  })
  afterAll(() => {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  /** One request on a connection of its own; resolves with its status, or the error's code. */
  const once = (path: string): Promise<number | string> =>
    new Promise((resolve) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path,
          agent: false,
          headers: { connection: 'close' },
        },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        },
      )
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
      req.setTimeout(60_000, () => req.destroy(new Error('timeout')))
      req.end()
    })

  it('listens with a queue of connections as long as the kernel allows', () => {
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'))
    const port = url.port
    // For a listening socket, `ss` reports the accept queue's length in Send-Q.
    const line = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).trim()
    const backlog = Number(line.split(/\s+/)[2])
    expect(backlog).toBe(Math.min(4096, somaxconn))
  })

  it('answers 1 300 requests that arrive at once, each on a new connection', async () => {
    // The server is busy (stopped) while the connections arrive: they all wait in the kernel's
    // queue, and are accepted together once it goes on.
    child.kill('SIGSTOP')
    let statuses: (number | string)[]
    try {
      const pending = Array.from({ length: 1300 }, (_, i) =>
        once(i % 2 === 0 ? '/api/health' : '/api/collections/users/records?perPage=1'),
      )
      await new Promise((resolve) => setTimeout(resolve, 1500))
      child.kill('SIGCONT')
      statuses = await Promise.all(pending)
    } finally {
      child.kill('SIGCONT')
    }
    const tally: Record<string, number> = {}
    for (const s of statuses) tally[String(s)] = (tally[String(s)] ?? 0) + 1
    // A guest gets an empty page of users (a failing listRule is no error).
    expect(tally).toEqual({ 200: 1300 })
  })
})
