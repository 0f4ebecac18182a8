import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const SIZE = 300 * 1024 * 1024
const CHUNK = 256 * 1024

/** The server's resident memory in bytes, read from /proc. */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(m?.[1] ?? 0) * 1024
}

/** Deterministic pseudo-random bytes for chunk `i` (no 300 MB buffer anywhere). */
function chunk(i: number): Buffer {
  const seed = createHash('sha256').update(String(i)).digest()
  const out = Buffer.allocUnsafe(CHUNK)
  for (let off = 0; off < CHUNK; off += seed.length) seed.copy(out, off)
  return out
}

describe('large files stream through the server (separate process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-large-'))
  let server: ChildProcess
  let url = ''
  let token = ''

  beforeAll(async () => {
    // The CLI from its sources: bin/svcbase.js runs dist/, which may be older than src/.
    const cli = ['--import', 'tsx', 'src/cli.ts']
    execFileSync(process.execPath, [
      ...cli,
      'superuser',
      'create',
      'big@example.com',
      'password123',
      `--dir=${dir}`,
    ])
    // Port 0: the server picks a free port and says which once it listens (its readiness); no
    // deadline of its own (the hook's timeout bounds it), and a server that exits first fails
    // at once with its output.
    server = spawn(process.execPath, [...cli, 'serve', '--http=127.0.0.1:0', `--dir=${dir}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    url = await new Promise<string>((ok, fail) => {
      let output = ''
      const read = (d: Buffer) => {
        output += d.toString()
        const m = /serving (http:\/\/\S+)\/api\//.exec(output)
        if (m) ok(m[1]!)
      }
      server.stdout?.on('data', read)
      server.stderr?.on('data', read)
      server.once('exit', () =>
        fail(new Error(`the server exited before it was ready:\n${output}`)),
      )
    })
    const login = await fetch(`${url}/api/collections/_superusers/auth-with-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity: 'big@example.com', password: 'password123' }),
    })
    token = ((await login.json()) as { token: string }).token
    const col = await fetch(`${url}/api/collections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: token },
      body: JSON.stringify({
        name: 'big',
        schema: [{ name: 'blob', type: 'file', options: { maxSize: 400 * 1024 * 1024 } }],
      }),
    })
    expect(col.status).toBe(200)
  }, 60_000)

  afterAll(() => {
    server.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  })

  it('uploads and downloads 300 MB byte-identically while RSS grows by less than 100 MB', async () => {
    const pid = server.pid!
    const baseline = rss(pid)
    let peak = baseline
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(pid))
    }, 25)
    try {
      const boundary = `----svcbase${Date.now()}`
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="blob"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      )
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
      const sent = createHash('sha256')
      let i = 0
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(head)
        },
        pull(c) {
          if (i * CHUNK >= SIZE) {
            c.enqueue(tail)
            c.close()
            return
          }
          const b = chunk(i++)
          sent.update(b)
          c.enqueue(b)
        },
      })
      const created = await fetch(`${url}/api/collections/big/records`, {
        method: 'POST',
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          authorization: token,
        },
        body,
        duplex: 'half',
      })
      const record = (await created.json()) as { id: string; blob: string; collectionId: string }
      expect(created.status, JSON.stringify(record)).toBe(200)

      const res = await fetch(
        `${url}/api/files/${record.collectionId}/${record.id}/${record.blob}`,
        { headers: { authorization: token } },
      )
      expect(res.status).toBe(200)
      expect(Number(res.headers.get('content-length'))).toBe(SIZE)
      const got = createHash('sha256')
      let received = 0
      for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
        got.update(part)
        received += part.length
      }
      expect(received).toBe(SIZE)
      expect(got.digest('hex')).toBe(sent.digest('hex'))
    } finally {
      clearInterval(sampler)
    }
    const growth = peak - baseline
    console.log(
      `server RSS: baseline ${(baseline / 2 ** 20).toFixed(1)} MB, peak ${(peak / 2 ** 20).toFixed(1)} MB, growth ${(growth / 2 ** 20).toFixed(1)} MB`,
    )
    expect(growth).toBeLessThan(100 * 1024 * 1024)
  }, 300_000)
})
