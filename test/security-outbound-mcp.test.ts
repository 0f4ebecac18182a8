/**
 * Security issue #32, point 13, black-box: `/api/mcp` refuses a foreign `Host`/`Origin` (DNS
 * rebinding, a MUST of the MCP spec) with a 403, and still answers loopback, the configured app
 * URL and clients that send no `Origin`.
 */
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

let t: TestServer
let port: number

/** A raw HTTP request (fetch would not let the test set `Host`). */
function raw(
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path: '/api/mcp', headers: { ...headers } },
      (res) => {
        const chunks: Buffer[] = []
        // The SSE handshake never ends: its status is enough.
        if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          res.destroy()
          return resolve({ status: res.statusCode ?? 0, body: null })
        }
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString()
          let parsed: unknown = text
          try {
            parsed = text === '' ? null : JSON.parse(text)
          } catch {
            // keep the text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed })
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
})
const post = (headers: Record<string, string>) =>
  raw('POST', { 'content-type': 'application/json', ...headers }, INIT)

const setAppUrl = (appURL: string) =>
  t.api('PATCH', '/api/settings', { token: t.suToken, body: { meta: { appURL } } })

beforeAll(async () => {
  t = await startServer()
  port = Number(new URL(t.url).port)
})
afterAll(() => t?.close())

describe('/api/mcp against DNS rebinding (#32.13)', () => {
  it('refuses a foreign Host and Origin with a 403 and a precise message', async () => {
    const r = await post({ host: 'evil.example.com', origin: 'http://evil.example.com' })
    expect(r.status).toBe(403)
    expect(r.body.jsonrpc).toBe('2.0')
    expect(r.body.id).toBeNull()
    expect(r.body.error.message).toMatch(/Origin header "http:\/\/evil\.example\.com"/)
    expect(r.body.error.message).toMatch(/DNS rebinding/)
    // A foreign Origin alone, with the real Host, is refused too, on every method.
    const o = await post({ host: `127.0.0.1:${port}`, origin: 'https://evil.example.com' })
    expect(o.status).toBe(403)
    expect((await raw('GET', { origin: 'http://evil.example.com' })).status).toBe(403)
    expect((await raw('DELETE', { origin: 'http://evil.example.com' })).status).toBe(403)
    expect((await post({ origin: 'null' })).status).toBe(403)
    // A rebound loopback name in Origin is no loopback origin.
    expect((await post({ origin: 'http://127.0.0.1.evil.example.com' })).status).toBe(403)
  })

  it('answers loopback origins and clients without an Origin', async () => {
    for (const origin of [
      `http://127.0.0.1:${port}`,
      'http://localhost:6274',
      'http://[::1]:3000',
      'https://127.0.0.2',
    ]) {
      const r = await post({ origin })
      expect(r.status, origin).toBe(200)
      expect(r.body.result.serverInfo.name).toBe('svcbase')
    }
    // A non-browser client (no Origin), whatever Host it names, while the app URL is loopback.
    expect((await post({})).status).toBe(200)
    expect((await post({ host: 'svcbase.internal:8090' })).status).toBe(200)
    expect((await raw('GET', {})).status).toBe(200)
  })

  it('takes the app URL as an origin, and checks Host once the app URL names a host', async () => {
    expect((await setAppUrl('https://api.example.org')).status).toBe(200)
    try {
      expect((await post({ origin: 'https://api.example.org' })).status).toBe(200)
      expect(
        (await post({ host: 'api.example.org', origin: 'https://api.example.org' })).status,
      ).toBe(200)
      expect((await post({ host: 'API.example.org:443' })).status).toBe(200)
      expect((await post({ host: `localhost:${port}` })).status).toBe(200)
      // Another scheme or port of the app's host is another origin.
      expect((await post({ origin: 'http://api.example.org' })).status).toBe(403)
      const host = await post({ host: 'evil.example.com' })
      expect(host.status).toBe(403)
      expect(host.body.error.message).toMatch(/Host header "evil\.example\.com"/)
    } finally {
      expect((await setAppUrl('http://127.0.0.1:8090')).status).toBe(200)
    }
  })
})
