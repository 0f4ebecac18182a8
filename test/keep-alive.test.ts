/**
 * Keep-alive connections: one raw TCP connection is reused across requests, error answers and
 * an idle pause longer than Node's 5 s default, as HTTP clients and proxies reuse theirs.
 * Regression test for issue 11 point 5 (ECONNRESET on a reused connection).
 */
import { connect, type Socket } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../src/core/logger.js'
import { createServer, type Server } from '../src/server.js'

interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** A raw HTTP/1.1 client over one socket: writes a request, parses one response at a time. */
class RawConnection {
  private buffer = Buffer.alloc(0)
  private waiting: (() => void) | null = null
  /** Set once the server has ended or closed the connection. */
  closed: string | null = null

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk])
      this.wake()
    })
    socket.on('end', () => this.markClosed('the server ended the connection'))
    socket.on('close', () => this.markClosed('the connection closed'))
    socket.on('error', (e) => this.markClosed(`socket error: ${e.message}`))
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)))
      socket.once('error', reject)
    })
  }

  private markClosed(reason: string): void {
    this.closed ??= reason
    this.wake()
  }

  private wake(): void {
    const w = this.waiting
    this.waiting = null
    w?.()
  }

  async request(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body = '',
  ): Promise<RawResponse> {
    if (this.closed) throw new Error(`cannot send ${method} ${path}: ${this.closed}`)
    const head = Object.entries({
      host: 'localhost',
      ...(body === '' ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
      ...headers,
    })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')
    this.socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n${body}`)
    return this.read()
  }

  private async read(): Promise<RawResponse> {
    for (;;) {
      const parsed = this.parse()
      if (parsed) return parsed
      if (this.closed) throw new Error(`no complete response: ${this.closed}`)
      await new Promise<void>((resolve) => (this.waiting = resolve))
    }
  }

  private parse(): RawResponse | null {
    const end = this.buffer.indexOf('\r\n\r\n')
    if (end === -1) return null
    const [statusLine = '', ...lines] = this.buffer
      .subarray(0, end)
      .toString('latin1')
      .split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    if (headers['transfer-encoding']) throw new Error('chunked responses are not expected here')
    const length = Number(headers['content-length'] ?? 0)
    if (this.buffer.length < end + 4 + length) return null
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8')
    this.buffer = this.buffer.subarray(end + 4 + length)
    return { status: Number(statusLine.split(' ')[1]), headers, body }
  }

  close(): void {
    this.socket.destroy()
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('keep-alive connections', () => {
  let server: Server
  let dir: string
  let port: number

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-keepalive-'))
    server = await createServer({ dataDir: dir, logger: silentLogger }, { bodyLimit: 1024 })
    const address = await server.http.listen({ host: '127.0.0.1', port: 0 })
    port = Number(new URL(address).port)
  })

  afterAll(async () => {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('announces a keep-alive timeout longer than clients keep idle connections', async () => {
    const conn = await RawConnection.open(port)
    try {
      const res = await conn.request('GET', '/api/health')
      expect(res.status).toBe(200)
      expect(res.headers.connection).toBe('keep-alive')
      expect(res.headers['keep-alive']).toBe('timeout=72')
    } finally {
      conn.close()
    }
  })

  it('keeps an idle connection open past 6 s and answers on it', async () => {
    const conn = await RawConnection.open(port)
    try {
      expect((await conn.request('GET', '/api/health')).status).toBe(200)
      // Node's default keep-alive (5 s, plus a 1 s grace) closed the connection here, so a
      // client reusing it at that moment got ECONNRESET (proxies keep idle sockets for 60 s).
      await sleep(6_500)
      expect(conn.closed).toBeNull()
      const res = await conn.request('GET', '/api/health')
      expect(res.status).toBe(200)
      expect(JSON.parse(res.body)).toMatchObject({ code: 200 })
    } finally {
      conn.close()
    }
  }, 15_000)

  it('every answer, errors included, keeps the connection open or says Connection: close', async () => {
    const json = { 'content-type': 'application/json' }
    const steps: [string, string, Record<string, string>, string, number][] = [
      ['GET', '/api/nope', {}, '', 404],
      ['GET', '/api/collections/_superusers/records', {}, '', 403],
      ['POST', '/api/collections/_superusers/auth-with-password', json, '{"identity":', 400],
      ['POST', '/api/collections/_superusers/records', json, `"${'x'.repeat(2048)}"`, 413],
      ['POST', '/api/collections/_superusers/records', { 'content-type': 'x/y' }, 'a', 400],
      ['GET', `/api/health?q=${'x'.repeat(2.1 * 1024 * 1024)}`, {}, '', 431],
      ['GET', '/api/health', {}, '', 200],
    ]
    let conn = await RawConnection.open(port)
    const seen: string[] = []
    try {
      for (const [method, path, headers, body, status] of steps) {
        const step = `${method} ${path.slice(0, 50)} → ${status}`
        const res = await conn.request(method, path, headers, body)
        expect(res.status, step).toBe(status)
        expect(JSON.parse(res.body), step).toMatchObject({ code: status })
        seen.push(`${status} ${res.headers.connection}`)
        await sleep(50)
        if (res.headers.connection === 'close') {
          // Announced: the client knows not to reuse the connection.
          expect(conn.closed, step).not.toBeNull()
          conn.close()
          conn = await RawConnection.open(port)
        } else {
          expect(res.headers.connection, step).toBe('keep-alive')
          expect(conn.closed, step).toBeNull()
        }
      }
    } finally {
      conn.close()
    }
    // Only body errors (Fastify stops reading the body) and malformed heads close the connection.
    expect(seen).toEqual([
      '404 keep-alive',
      '403 keep-alive',
      '400 close',
      '413 close',
      '400 close',
      '431 close',
      '200 keep-alive',
    ])
  })

  it("reuses fetch's pooled connection after the event loop was busy past 6 s", async () => {
    const url = `http://127.0.0.1:${port}/api/health`
    const first = await fetch(url)
    expect(await first.json()).toMatchObject({ code: 200 })
    // Idle for a moment (fetch's pool checks its idle timers about every 0.5 s), then…
    await sleep(1_000)
    // …in-process work between two requests (as in test/filter-fuzz-laws.test.ts) keeps the
    // event loop busy: neither fetch's idle timer nor the server's can run before the next request
    // is written. With Node's 5 s keep-alive the server's timer then closed the socket under the
    // request just sent: "fetch failed", ECONNRESET. The thread sleeps here instead of spinning.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6_500)
    const res = await fetch(url)
    expect(res.status).toBe(200)
  }, 15_000)
})
