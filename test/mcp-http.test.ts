/**
 * `/api/mcp` on the wire (SPEC §4.12, §7, §9 rule 2; DECISIONS "MCP transports"): SPEC's
 * HTTP+SSE handshake read by a real SSE client, JSON-RPC answered in the POST, notifications
 * 202 without a body, every standard error code, version negotiation, the Streamable HTTP
 * headers, batches and the request limits.
 */
import { request } from 'node:http'
import { EventSource } from 'eventsource'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtInFeatures } from '../src/features/index.js'
import { mcpFeature } from '../src/features/mcp/index.js'
import { startServer, type TestServer } from './helpers/server.js'

const KEEP_ALIVE_MS = 150

/** POSTs a raw body to /api/mcp; returns status, content type and parsed JSON (or text). */
async function post(
  t: TestServer,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; body: any; text: string }> {
  const res = await fetch(`${t.url}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  let parsed: unknown = null
  try {
    parsed = text === '' ? null : JSON.parse(text)
  } catch {
    parsed = text
  }
  return { status: res.status, type: res.headers.get('content-type'), body: parsed, text }
}

const rpc = (method: string, params?: unknown, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
})

/** Reads raw SSE bytes from a GET until `until` matches the text so far (or a timeout). */
async function readStream(
  url: string,
  until: (text: string) => boolean,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; text: string; cancel: () => Promise<void> }> {
  const ctrl = new AbortController()
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: ctrl.signal,
  })
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const deadline = Date.now() + 5000
  while (!until(text) && Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
  }
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    text,
    cancel: async () => {
      ctrl.abort()
      await reader.cancel().catch(() => {})
    },
  }
}

describe('MCP over HTTP: the SPEC transport and JSON-RPC', () => {
  let t: TestServer

  beforeAll(async () => {
    const features = builtInFeatures().map((f) =>
      f.name === 'mcp' ? mcpFeature({ keepAliveMs: KEEP_ALIVE_MS }) : f,
    )
    t = await startServer({ features })
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'posts',
        type: 'base',
        fields: [{ name: 'title', type: 'text', required: true }],
        listRule: '',
        viewRule: '',
        createRule: '',
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  })
  afterAll(() => t.close())

  describe('GET /api/mcp (HTTP+SSE, unauthenticated)', () => {
    it('sends the endpoint event first, read by a real EventSource', async () => {
      const es = new EventSource(`${t.url}/api/mcp`)
      try {
        const data = await new Promise<string>((resolve, reject) => {
          es.addEventListener('endpoint', (e) => resolve(e.data))
          es.onerror = (e) => reject(new Error(`SSE error: ${String(e.message)}`))
        })
        expect(data).toBe('/api/mcp')
      } finally {
        es.close()
      }
    })

    it('then sends keep-alive comments at the configured interval', async () => {
      const started = Date.now()
      const s = await readStream(
        `${t.url}/api/mcp`,
        (x) => (x.match(/:keep-alive\n\n/g) ?? []).length >= 2,
      )
      await s.cancel()
      expect(s.status).toBe(200)
      expect(s.type).toBe('text/event-stream')
      expect(s.text.startsWith('event:endpoint\ndata:/api/mcp\n\n')).toBe(true)
      expect(s.text.match(/:keep-alive\n\n/g)).toHaveLength(2)
      // Two intervals passed (no timing upper bound: the machine may be slow).
      expect(Date.now() - started).toBeGreaterThanOrEqual(KEEP_ALIVE_MS)
    })

    it('needs no token and ignores an invalid one', async () => {
      const s = await readStream(`${t.url}/api/mcp`, (x) => x.includes('data:/api/mcp'), {
        authorization: 'Bearer not-a-token',
      })
      await s.cancel()
      expect(s.status).toBe(200)
      expect(s.text).toContain('event:endpoint')
    })

    it('answers 405 to a Streamable HTTP client asking for a server stream', async () => {
      const streamable: Record<string, string>[] = [
        { 'mcp-session-id': 'abc' },
        { 'mcp-protocol-version': '2025-06-18' },
      ]
      for (const headers of streamable) {
        const res = await fetch(`${t.url}/api/mcp`, {
          headers: { accept: 'text/event-stream', ...headers },
        })
        expect(res.status).toBe(405)
        expect(await res.json()).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message:
              'Method not allowed: this server opens no server-to-client stream for Streamable HTTP clients; POST each message to /api/mcp.',
          },
        })
      }
      const del = await fetch(`${t.url}/api/mcp`, { method: 'DELETE' })
      expect(del.status).toBe(405)
      expect(((await del.json()) as { error: { code: number } }).error.code).toBe(-32600)
    })
  })

  describe('POST /api/mcp', () => {
    it('answers initialize synchronously, echoing a supported version', async () => {
      for (const v of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
        const res = await post(
          t,
          rpc('initialize', {
            protocolVersion: v,
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          }),
        )
        expect(res.status).toBe(200)
        expect(res.type).toMatch(/^application\/json/)
        expect(res.body).toEqual({
          jsonrpc: '2.0',
          id: 1,
          result: {
            protocolVersion: v,
            capabilities: { tools: { listChanged: false } },
            serverInfo: { name: 'svcbase', version: expect.any(String) },
          },
        })
      }
      expect(
        res0ProtocolVersion(await post(t, rpc('initialize', { protocolVersion: '2023-01-01' }))),
      ).toBe('2025-11-25')
      // SPEC's client names no version: SPEC's own.
      expect(res0ProtocolVersion(await post(t, rpc('initialize')))).toBe('2024-11-05')
      const bad = await post(t, rpc('initialize', { protocolVersion: 20241105 }, 'x'))
      expect(bad.status).toBe(200)
      expect(bad.body).toEqual({
        jsonrpc: '2.0',
        id: 'x',
        error: { code: -32602, message: 'Invalid params: "protocolVersion" must be a string.' },
      })
    })

    it('answers ping with {} and keeps string ids', async () => {
      expect((await post(t, rpc('ping', undefined, 'p-1'))).body).toEqual({
        jsonrpc: '2.0',
        id: 'p-1',
        result: {},
      })
    })

    it('answers a notification and a client response with 202 and no body', async () => {
      for (const message of [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
        { jsonrpc: '2.0', method: 'no/such/notification' },
        { jsonrpc: '2.0', id: 7, result: {} },
      ]) {
        const res = await post(t, message)
        expect(res.status, JSON.stringify(message)).toBe(202)
        expect(res.text).toBe('')
      }
    })

    it('lists tools and calls one without a token (a guest, under the rules)', async () => {
      const list = await post(t, rpc('tools/list'))
      const names = list.body.result.tools.map((x: { name: string }) => x.name)
      expect(names).toEqual(expect.arrayContaining(['list_posts', 'get_posts', 'create_posts']))
      // posts has no update or delete rule (superusers only): a guest does not see those tools.
      expect(names).not.toContain('update_posts')
      const created = await post(
        t,
        rpc('tools/call', { name: 'create_posts', arguments: { title: 'hi' } }),
      )
      expect(created.body.result).toMatchObject({
        isError: false,
        structuredContent: { title: 'hi' },
      })
      const denied = await post(
        t,
        rpc('tools/call', {
          name: 'update_posts',
          arguments: { id: created.body.result.structuredContent.id, title: 'x' },
        }),
      )
      expect(denied.status).toBe(200)
      expect(denied.body.result.isError).toBe(true)
      expect(JSON.parse(denied.body.result.content[0].text)).toMatchObject({ code: 403 })
      const su = await post(t, rpc('tools/list'), { authorization: `Bearer ${t.suToken}` })
      expect(su.body.result.tools.map((x: { name: string }) => x.name)).toContain('update_posts')
    })

    it('runs the same record path as the HTTP route: realtime subscribers see the change', async () => {
      const es = new EventSource(`${t.url}/api/realtime`)
      try {
        const events: { action: string; record: { title: string } }[] = []
        const clientId = await new Promise<string>((resolve) =>
          es.addEventListener('SVC_CONNECT', (e) => resolve(JSON.parse(e.data).clientId)),
        )
        es.addEventListener('posts', (e) => events.push(JSON.parse(e.data)))
        const sub = await t.api('POST', '/api/realtime', {
          body: { clientId, subscriptions: ['posts'] },
        })
        expect(sub.status).toBe(204)
        const created = await post(
          t,
          rpc('tools/call', { name: 'create_posts', arguments: { title: 'seen live' } }),
        )
        expect(created.body.result.isError).toBe(false)
        const deadline = Date.now() + 5000
        while (events.length === 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20))
        }
        expect(events).toEqual([
          expect.objectContaining({
            action: 'create',
            record: expect.objectContaining({ title: 'seen live' }),
          }),
        ])
      } finally {
        es.close()
      }
    })

    it('answers each malformed request with its JSON-RPC error code', async () => {
      const cases: [string, unknown, number, number, string][] = [
        [
          'invalid JSON',
          '{"jsonrpc": "2.0", "id": 1, "method": ',
          400,
          -32700,
          'Parse error: the body is not valid JSON',
        ],
        ['empty body', '', 400, -32700, 'Parse error'],
        [
          'too deep',
          '['.repeat(200) + ']'.repeat(200),
          400,
          -32700,
          'nested deeper than 128 levels',
        ],
        ['not JSON-RPC 2.0', { id: 1, method: 'ping' }, 200, -32600, 'Invalid request'],
        ['null id', { jsonrpc: '2.0', id: null, method: 'ping' }, 200, -32600, 'Invalid request'],
        ['a scalar', 42, 200, -32600, 'Invalid request'],
        ['unknown method', rpc('resources/list'), 200, -32601, 'Method not found: resources/list.'],
        ['params not an object', rpc('tools/list', [1]), 200, -32602, '"params" must be an object'],
        [
          'no tool name',
          rpc('tools/call', { arguments: {} }),
          200,
          -32602,
          '"name" must name a tool',
        ],
        [
          'unknown tool',
          rpc('tools/call', { name: 'create_nothing' }),
          200,
          -32602,
          'unknown tool create_nothing',
        ],
        [
          'system collection',
          rpc('tools/call', { name: 'list__superusers' }),
          200,
          -32602,
          'unknown tool',
        ],
        [
          'arguments not an object',
          rpc('tools/call', { name: 'list_posts', arguments: 'x' }),
          200,
          -32602,
          '"arguments" must be an object',
        ],
        [
          'get without id',
          rpc('tools/call', { name: 'get_posts', arguments: {} }),
          200,
          -32602,
          'the argument "id"',
        ],
        [
          'perPage not an integer',
          rpc('tools/call', { name: 'list_posts', arguments: { perPage: 1.5 } }),
          200,
          -32602,
          'the argument "perPage"',
        ],
        [
          'filter not a string',
          rpc('tools/call', { name: 'list_posts', arguments: { filter: 1 } }),
          200,
          -32602,
          'the argument "filter"',
        ],
      ]
      for (const [what, body, status, code, message] of cases) {
        const res = await post(t, body)
        expect(res.status, what).toBe(status)
        expect(res.type, what).toMatch(/^application\/json/)
        expect(res.body.jsonrpc, what).toBe('2.0')
        expect(res.body.error.code, what).toBe(code)
        expect(res.body.error.message, what).toContain(message)
        expect(res.body.id, what).toBe(code === -32700 || code === -32600 ? null : 1)
      }
    })

    it('answers a filter the record service refuses as a tool error, not a protocol error', async () => {
      const res = await post(
        t,
        rpc('tools/call', { name: 'list_posts', arguments: { filter: 'nope ~~ (' } }),
      )
      expect(res.status).toBe(200)
      expect(res.body.result.isError).toBe(true)
      expect(res.body.result.structuredContent).toMatchObject({ code: 400 })
    })

    it('caps perPage as the list route does', async () => {
      const res = await post(
        t,
        rpc('tools/call', { name: 'list_posts', arguments: { perPage: 100000 } }),
      )
      expect(res.body.result.structuredContent.perPage).toBe(500)
    })

    it('checks the MCP-Protocol-Version header, the content type and the size', async () => {
      const bad = await post(t, rpc('ping'), { 'mcp-protocol-version': '1999-01-01' })
      expect(bad.status).toBe(400)
      expect(bad.body.error).toEqual({
        code: -32600,
        message:
          'Bad request: unsupported MCP-Protocol-Version header "1999-01-01" (supported: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05).',
      })
      expect((await post(t, rpc('ping'), { 'mcp-protocol-version': '2024-11-05' })).status).toBe(
        200,
      )
      // A bare string body from fetch (text/plain) or with no type at all is read as JSON.
      const plain = await fetch(`${t.url}/api/mcp`, {
        method: 'POST',
        body: JSON.stringify(rpc('ping')),
      })
      expect(plain.status).toBe(200)
      expect(await plain.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
      const untyped = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(`${t.url}/api/mcp`, { method: 'POST' }, (res) => {
          let text = ''
          res.on('data', (c: Buffer) => (text += c.toString()))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
        })
        req.on('error', reject)
        req.end(JSON.stringify(rpc('ping')))
      })
      expect(untyped.status).toBe(200)
      expect(JSON.parse(untyped.text)).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
      const form = await post(t, 'a=b', { 'content-type': 'application/x-www-form-urlencoded' })
      expect(form.status).toBe(415)
      expect(form.body.error.code).toBe(-32600)
      const huge = await post(t, rpc('ping', { pad: 'x'.repeat(5 * 1024 * 1024) }))
      expect(huge.status).toBe(413)
      expect(huge.body.error.message).toBe(
        'Request entity too large: an MCP message is at most 4194304 bytes.',
      )
    })

    it('takes batches where the version allows them (2025-03-26), refuses them where not', async () => {
      const batch = [
        rpc('ping', undefined, 1),
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        rpc('nope', undefined, 2),
        { bad: true },
      ]
      const res = await post(t, batch)
      expect(res.status).toBe(200)
      expect(res.body).toEqual([
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found: nope.' } },
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: expect.stringContaining('Invalid request') },
        },
      ])
      const onlyNotes = await post(t, [{ jsonrpc: '2.0', method: 'notifications/initialized' }])
      expect(onlyNotes.status).toBe(202)
      expect(onlyNotes.text).toBe('')
      const empty = await post(t, [])
      expect(empty.status).toBe(200)
      expect(empty.body.error).toEqual({
        code: -32600,
        message: 'Invalid request: the batch is empty.',
      })
      const tooMany = await post(
        t,
        Array.from({ length: 51 }, (_, i) => rpc('ping', undefined, i)),
      )
      expect(tooMany.body.error.message).toBe('Invalid request: a batch holds at most 50 messages.')
      const newer = await post(t, [rpc('ping')], { 'mcp-protocol-version': '2025-06-18' })
      expect(newer.status).toBe(200)
      expect(newer.body.error.message).toBe(
        'Invalid request: JSON-RPC batches are not part of MCP protocol version 2025-06-18.',
      )
    })
  })

  it('closes open SSE streams when the server stops', async () => {
    const features = builtInFeatures().map((f) =>
      f.name === 'mcp' ? mcpFeature({ keepAliveMs: 60_000 }) : f,
    )
    const other = await startServer({ features })
    const res = await fetch(`${other.url}/api/mcp`)
    const reader = res.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toBe('event:endpoint\ndata:/api/mcp\n\n')
    const closing = other.close()
    // The stream ends (done) instead of hanging until a keep-alive or the test's timeout.
    let done = false
    let rest = ''
    while (!done) {
      const chunk = await reader.read()
      done = chunk.done
      if (chunk.value) rest += new TextDecoder().decode(chunk.value)
    }
    await closing
    expect(rest).toBe('')
  })

  it('answers a rate limit as every route does (429 in the API shape)', async () => {
    const limited = await startServer()
    try {
      const set = await limited.api('PATCH', '/api/settings', {
        token: limited.suToken,
        body: {
          rateLimits: {
            enabled: true,
            rules: [{ label: '/api/mcp', audience: '', duration: 60, maxRequests: 2 }],
          },
        },
      })
      expect(set.status, JSON.stringify(set.body)).toBe(200)
      expect((await post(limited, rpc('ping'))).status).toBe(200)
      expect((await post(limited, rpc('ping'))).status).toBe(200)
      const third = await post(limited, rpc('ping'))
      expect(third.status).toBe(429)
      expect(third.body).toEqual({
        code: 429,
        status: 429,
        message: 'Too Many Requests.',
        data: {},
      })
    } finally {
      await limited.close()
    }
  })

  it('is gone with the feature switched off', async () => {
    const off = await startServer({ disable: ['mcp'] })
    try {
      expect((await post(off, rpc('ping'))).status).toBe(404)
      expect(
        (await off.api('GET', '/api/collections/users/tool-schema', { token: off.suToken })).status,
      ).toBe(404)
    } finally {
      await off.close()
    }
  })
})

function res0ProtocolVersion(res: { body: any }): string {
  return res.body.result.protocolVersion as string
}
