/**
 * Security issue #32 (slow clients), against the real listening server with raw sockets: a
 * request head trickled byte by byte is cut after `connections.headersTimeout` (10 s by default,
 * 73 s before), one address may hold `connections.maxConnectionsPerIP` open connections (2000 by
 * default, unlimited before) and one client IP `connections.maxRealtimePerIP` realtime streams
 * (100 by default, unlimited before); past a cap the answer is a clear 429.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

/** A raw TCP connection and everything the server wrote on it. */
interface Raw {
  socket: Socket
  /** Everything received so far. */
  text(): string
  /** Resolves with everything received once the server closed the connection. */
  closed: Promise<string>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Opens a raw connection to `url`'s port; resolves once connected. */
function openRaw(url: string): Promise<Raw> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) })
    let data = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      data += chunk
    })
    const closed = new Promise<string>((r) => socket.on('close', () => r(data)))
    // NB: the server may reset a refused socket after answering; what was read still counts.
    socket.on('error', () => undefined)
    socket.once('connect', () => resolve({ socket, text: () => data, closed }))
    socket.once('error', reject)
  })
}

/** Sends one GET on a raw connection and waits for a complete answer; returns its status. */
async function rawGet(raw: Raw, path: string): Promise<number> {
  const before = raw.text().length
  raw.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)
  const deadline = Date.now() + 5000
  for (;;) {
    const got = raw.text().slice(before)
    const m = /^HTTP\/1\.1 (\d{3})/.exec(got)
    if (m && got.includes('\r\n\r\n')) return Number(m[1])
    if (raw.socket.destroyed || Date.now() > deadline) throw new Error(`no answer: ${got}`)
    await sleep(10)
  }
}

/** The status line and JSON body of a raw answer. */
function parseAnswer(text: string): { status: number; body: unknown } {
  const m = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n[\s\S]*?\r\n\r\n([\s\S]*)$/.exec(text)
  if (!m) throw new Error(`not an HTTP answer: ${JSON.stringify(text)}`)
  return { status: Number(m[1]), body: JSON.parse(m[2]!) }
}

/**
 * Trickles a request head, one header line every `everyMs`, until the server closes the
 * connection or `giveUpMs` passes; returns what it answered and how long it held the socket.
 */
async function trickle(
  url: string,
  everyMs: number,
  giveUpMs: number,
): Promise<{ answer: string; heldMs: number; closed: boolean }> {
  const raw = await openRaw(url)
  const started = Date.now()
  raw.socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n')
  let closed = false
  void raw.closed.then(() => {
    closed = true
  })
  let n = 0
  while (!closed && Date.now() - started < giveUpMs) {
    await sleep(everyMs)
    if (!closed && raw.socket.writable) raw.socket.write(`X-Slow-${n++}: y\r\n`)
  }
  const heldMs = Date.now() - started
  raw.socket.destroy()
  return { answer: raw.text(), heldMs, closed }
}

/** Opens `n` raw connections at once. */
const openMany = (url: string, n: number) =>
  Promise.all(Array.from({ length: n }, () => openRaw(url)))

/** One open SSE stream (`GET /api/realtime`) and its answer's status. */
interface Stream {
  status: number
  body: string
  req: ClientRequest
  res: IncomingMessage
  close(): void
}

/** Opens `GET /api/realtime` on its own connection; resolves with the answer's head. */
function openStream(url: string, headers: Record<string, string> = {}): Promise<Stream> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, path: '/api/realtime', agent: false, headers },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        const stream: Stream = {
          status: res.statusCode ?? 0,
          get body() {
            return body
          },
          req,
          res,
          close: () => req.destroy(),
        }
        res.on('error', () => undefined)
        if (res.statusCode === 200) {
          // The head arrives with the first events; the stream stays open.
          res.on('data', (c: string) => (body += c))
          resolve(stream)
        } else {
          res.on('data', (c: string) => (body += c))
          res.on('end', () => resolve(stream))
        }
      },
    )
    req.on('error', reject)
    req.end()
  })
}

describe('security #32: slow clients', () => {
  let t: TestServer
  const opened: { destroy(): void }[] = []
  const patch = async (body: unknown) => {
    const res = await t.api('PATCH', '/api/settings', { token: t.suToken, body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }

  beforeAll(async () => {
    t = await startServer()
  })
  afterEach(async () => {
    for (const s of opened.splice(0)) s.destroy()
    await patch({
      connections: { maxConnectionsPerIP: 2000, maxRealtimePerIP: 100, headersTimeout: 10 },
      trustedProxy: { headers: [] },
    })
    // Every socket of the last test is gone before the next counts its own.
    await sleep(200)
  })
  afterAll(async () => {
    await t?.close()
  })

  it('lists the connections group with its defaults, and refuses bad values with 400', async () => {
    const res = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(res.body.connections).toEqual({
      maxConnectionsPerIP: 2000,
      maxRealtimePerIP: 100,
      headersTimeout: 10,
    })
    const bad = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { connections: { maxConnectionsPerIP: -1, maxRealtimePerIP: 1.5, headersTimeout: 0 } },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toBe('An error occurred while saving the new settings.')
    expect(bad.body.data.connections.maxConnectionsPerIP.code).toBe(
      'validation_min_greater_equal_than_required',
    )
    expect(bad.body.data.connections.maxRealtimePerIP.code).toBe('validation_invalid_value')
    expect(bad.body.data.connections.headersTimeout.code).toBe(
      'validation_min_greater_equal_than_required',
    )
    const long = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { connections: { headersTimeout: 301 } },
    })
    expect(long.status).toBe(400)
    expect(long.body.data.connections.headersTimeout).toEqual({
      code: 'validation_max_less_equal_than_required',
      message: 'Must be no greater than 300.',
      params: { threshold: 300 },
    })
  })

  it('cuts a trickled request head after the default 10 s with a 408', async () => {
    const r = await trickle(t.url, 1000, 20_000)
    expect(r.closed, `held ${r.heldMs} ms`).toBe(true)
    // 10 s, checked every second; the margin is for a loaded machine.
    expect(r.heldMs).toBeLessThan(15_000)
    expect(r.heldMs).toBeGreaterThanOrEqual(9_000)
    expect(parseAnswer(r.answer)).toEqual({
      status: 408,
      body: { code: 408, status: 408, message: 'The request took too long to arrive.', data: {} },
    })
  }, 30_000)

  it('follows connections.headersTimeout, and leaves idle keep-alive and open streams alone', async () => {
    await patch({ connections: { headersTimeout: 1 } })
    const r = await trickle(t.url, 300, 10_000)
    expect(r.closed).toBe(true)
    expect(r.heldMs).toBeLessThan(5_000)
    expect(parseAnswer(r.answer).status).toBe(408)
    // A keep-alive connection idle between requests is not cut by the header timeout.
    const raw = await openRaw(t.url)
    opened.push(raw.socket)
    expect(await rawGet(raw, '/api/health')).toBe(200)
    await sleep(3_000)
    expect(raw.socket.destroyed).toBe(false)
    expect(await rawGet(raw, '/api/health')).toBe(200)
    // Nor is a realtime stream, whose request head arrived long ago.
    const stream = await openStream(t.url)
    opened.push(stream.req)
    expect(stream.status).toBe(200)
    await sleep(3_000)
    expect(stream.res.destroyed).toBe(false)
    expect(stream.body).toContain('SVC_CONNECT')
  }, 30_000)

  /**
   * Opens `n` raw connections and splits them into those the server kept and those it refused
   * (answered and closed). The test's own fetch connections count too, so tests bound the split.
   */
  const split = async (n: number) => {
    const all = await openMany(t.url, n)
    opened.push(...all.map((r) => r.socket))
    await sleep(500)
    const refused = all.filter((r) => r.socket.destroyed || r.text() !== '')
    const kept = all.filter((r) => !refused.includes(r))
    return { kept, refused: await Promise.all(refused.map((r) => r.closed)) }
  }

  it('answers 429 and closes connections past 2000 from one address by default', async () => {
    const { kept, refused } = await split(2020)
    // A few of the 2000 are the test's own fetch connections, still open.
    expect(kept.length).toBeGreaterThanOrEqual(1990)
    expect(kept.length).toBeLessThanOrEqual(2000)
    expect(refused.length).toBe(2020 - kept.length)
    for (const answer of refused)
      expect(parseAnswer(answer)).toEqual({
        status: 429,
        body: {
          code: 429,
          status: 429,
          message: 'Too many open connections from this address.',
          data: {},
        },
      })
    // The admitted ones still serve requests.
    expect(await rawGet(kept[0]!, '/api/health')).toBe(200)
    expect(await rawGet(kept.at(-1)!, '/api/health')).toBe(200)
  })

  it('follows connections.maxConnectionsPerIP, frees a slot when a connection closes, and runs no request on a refused one', async () => {
    await patch({ connections: { maxConnectionsPerIP: 3 } })
    const { kept, refused } = await split(6)
    expect(kept.length).toBeGreaterThanOrEqual(1)
    expect(kept.length).toBeLessThanOrEqual(3)
    expect(refused.every((a) => parseAnswer(a).status === 429)).toBe(true)
    // A request sent on a refused connection gets the 429, not its own answer.
    const more = await openRaw(t.url)
    opened.push(more.socket)
    more.socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n')
    const answer = await more.closed
    expect(parseAnswer(answer).status).toBe(429)
    expect(answer.match(/HTTP\/1\.1/g)).toHaveLength(1)
    kept[0]!.socket.destroy()
    await kept[0]!.closed
    await sleep(100)
    const again = await openRaw(t.url)
    opened.push(again.socket)
    expect(await rawGet(again, '/api/health')).toBe(200)
  })

  it('does not cap connections by TCP peer while a proxy header is trusted', async () => {
    await patch({
      connections: { maxConnectionsPerIP: 2 },
      trustedProxy: { headers: ['X-Real-IP'] },
    })
    const held = await openMany(t.url, 5)
    opened.push(...held.map((r) => r.socket))
    for (const raw of held) expect(await rawGet(raw, '/api/health')).toBe(200)
  })

  it('answers 429 to the 101st realtime stream of a client IP by default, and accepts one again when a stream ends', async () => {
    const streams = await Promise.all(Array.from({ length: 100 }, () => openStream(t.url)))
    opened.push(...streams.map((s) => s.req))
    expect(streams.every((s) => s.status === 200)).toBe(true)
    const extra = await openStream(t.url)
    opened.push(extra.req)
    expect(extra.status).toBe(429)
    expect(JSON.parse(extra.body)).toEqual({
      code: 429,
      status: 429,
      message: 'Too many open realtime connections from this address.',
      data: {},
    })
    streams[0]!.close()
    await sleep(200)
    const again = await openStream(t.url)
    opened.push(again.req)
    expect(again.status).toBe(200)
  })

  it('counts realtime streams per client IP as resolved through trustedProxy', async () => {
    await patch({
      connections: { maxRealtimePerIP: 2 },
      trustedProxy: { headers: ['X-Forwarded-For'] },
    })
    const from = (ip: string) => openStream(t.url, { 'x-forwarded-for': ip })
    const a = [await from('10.0.0.1'), await from('10.0.0.1')]
    opened.push(...a.map((s) => s.req))
    expect(a.map((s) => s.status)).toEqual([200, 200])
    const third = await from('10.0.0.1')
    opened.push(third.req)
    expect(third.status).toBe(429)
    const other = await from('10.0.0.2')
    opened.push(other.req)
    expect(other.status).toBe(200)
    // 0 lifts the cap.
    await patch({ connections: { maxRealtimePerIP: 0 } })
    const lifted = await from('10.0.0.1')
    opened.push(lifted.req)
    expect(lifted.status).toBe(200)
  })
})
