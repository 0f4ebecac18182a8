/**
 * The LLM gateway black-box (SPEC §4.11, §6): a real server, real realtime connections
 * (`eventsource`), and for the OpenAI-compatible provider a local double on 127.0.0.1
 * (test/helpers/openai-double.ts) that streams, reports usage, fails, breaks mid-stream and
 * stalls.
 */
import { EventSource } from 'eventsource'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOpenAiDouble, type OpenAiDouble } from './helpers/openai-double.js'
import { startServer, type TestServer } from './helpers/server.js'
import { onPostgres, otherConnection } from './helpers/other-connection.js'

interface Received {
  name: string
  data: any
}

const EVENTS = ['llm_chunk', 'llm_done', 'llm_error']

/** One realtime connection and every `llm_*` event it received. */
class Conn {
  readonly received: Received[] = []
  clientId = ''
  private constructor(readonly es: EventSource) {}

  static async open(t: TestServer, token: string | null): Promise<Conn> {
    const conn = new Conn(new EventSource(`${t.url}/api/realtime`))
    const connected = new Promise<string>((resolve) =>
      conn.es.addEventListener('SVC_CONNECT', (e) => resolve(JSON.parse(e.data).clientId)),
    )
    for (const name of EVENTS)
      conn.es.addEventListener(name, (e) => conn.received.push({ name, data: JSON.parse(e.data) }))
    conn.clientId = await connected
    if (token !== null) {
      // The SDK's way: subscribing binds the caller's auth to the connection.
      const res = await t.api('POST', '/api/realtime', {
        token,
        body: { clientId: conn.clientId, subscriptions: ['llm_chunk'] },
      })
      expect(res.status).toBe(204)
    }
    conns.push(conn)
    return conn
  }

  /** Waits until `pred` holds for the received events. */
  async until(pred: (r: Received[]) => boolean, ms = 5000): Promise<Received[]> {
    const deadline = Date.now() + ms
    while (!pred(this.received)) {
      if (Date.now() > deadline)
        throw new Error(`condition not met; got ${JSON.stringify(this.received)}`)
      await new Promise((r) => setTimeout(r, 10))
    }
    return this.received
  }

  /** The events of one request id. */
  of(requestId: string): Received[] {
    return this.received.filter((r) => r.data?.requestId === requestId)
  }
}

const conns: Conn[] = []

/** A chat request. */
const msg = (content: string, role = 'user') => ({ role, content })

describe('LLM gateway', () => {
  let t: TestServer
  let double: OpenAiDouble
  const users: Record<string, { id: string; token: string }> = {}
  let apiKey = ''

  const chat = (body: unknown, token: string | null = users.alice!.token) =>
    t.api('POST', '/api/llm/chat', { token, body })
  const setLlm = async (llm: Record<string, unknown>) => {
    const res = await t.api('PATCH', '/api/settings', { token: t.suToken, body: { llm } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res
  }
  const usageRows = async (filter = '') => {
    const q = filter ? `&filter=${encodeURIComponent(filter)}` : ''
    const res = await t.api(
      'GET',
      `/api/collections/_llm_usage/records?perPage=500&sort=created${q}`,
      {
        token: t.suToken,
      },
    )
    expect(res.status).toBe(200)
    return res.body.items as any[]
  }
  const useDouble = () =>
    setLlm({
      enabled: true,
      provider: 'openai-compatible',
      baseUrl: double.url,
      apiKey: 'sk-test-key',
      model: 'tiny-model',
      timeout: 60,
    })
  const useEcho = () => setLlm({ enabled: false })

  beforeAll(async () => {
    t = await startServer()
    double = await startOpenAiDouble({ apiKey: 'sk-test-key', models: ['tiny-model'] })
    for (const name of ['alice', 'bob']) {
      const email = `${name}@example.com`
      const created = await t.api('POST', '/api/collections/users/records', {
        body: { email, password: 'password123', passwordConfirm: 'password123' },
      })
      expect(created.status).toBe(200)
      const login = await t.api('POST', '/api/collections/users/auth-with-password', {
        body: { identity: email, password: 'password123' },
      })
      users[name] = { id: created.body.id, token: login.body.token }
    }
    const minted = await t.api('POST', '/api/api-keys', {
      token: users.bob!.token,
      body: { name: 'llm' },
    })
    expect(minted.status).toBe(200)
    apiKey = minted.body.key
    for (const [name, createRule] of [
      ['chats', '@request.auth.id != ""'],
      ['denied', '@request.auth.id = "nobody"'],
      ['locked', null],
    ] as const) {
      const res = await t.api('POST', '/api/collections', {
        token: t.suToken,
        body: {
          name,
          type: 'base',
          listRule: '@request.auth.id != ""',
          viewRule: '@request.auth.id != ""',
          createRule,
          schema: [
            { name: 'prompt', type: 'text' },
            { name: 'response', type: 'text' },
            { name: 'model', type: 'text' },
          ],
        },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
    }
    const view = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'chat_view', type: 'view', viewQuery: 'SELECT id, prompt FROM chats' },
    })
    expect(view.status, JSON.stringify(view.body)).toBe(200)
  })
  afterAll(async () => {
    for (const c of conns) c.es.close()
    await double.close()
    await t.close()
  })

  describe('echo provider (llm.enabled false)', () => {
    it('answers any authenticated record, deterministically; guests get 401', async () => {
      const body = { messages: [msg('Be brief.', 'system'), msg('hello there  world')] }
      const guest = await chat(body, null)
      expect(guest.status).toBe(401)
      const a = await chat(body)
      expect(a.status).toBe(200)
      expect(a.body).toEqual({
        reply: 'Echo: hello there  world',
        promptTokens: 5,
        completionTokens: 4,
        requestId: expect.stringMatching(/^[A-Za-z0-9]{15}$/),
      })
      const again = await chat(body)
      expect(again.body.reply).toBe(a.body.reply)
      expect(again.body.requestId).not.toBe(a.body.requestId)
      const su = await chat(body, t.suToken)
      expect(su.status).toBe(200)
      expect(su.body.reply).toBe('Echo: hello there  world')
      const key = await chat(body, apiKey)
      expect(key.status).toBe(200)
      expect(key.body.completionTokens).toBe(4)
      const bogus = await chat(body, 'not-a-token')
      expect(bogus.status).toBe(401)
    })

    it('refuses a bad body with field errors', async () => {
      const cases: [unknown, Record<string, unknown>][] = [
        [{}, { messages: { code: 'validation_required' } }],
        [{ messages: [] }, { messages: { code: 'validation_required' } }],
        [{ messages: 'hi' }, { messages: { code: 'validation_invalid_value' } }],
        [
          {
            messages: [
              msg('ok'),
              { role: 'robot', content: 'x' },
              { role: 'user', content: 3 },
              'x',
            ],
          },
          {
            messages: {
              '1': { role: { code: 'validation_in_invalid' } },
              '2': { content: { code: 'validation_invalid_value' } },
              '3': { code: 'validation_invalid_value' },
            },
          },
        ],
        [
          { messages: Array.from({ length: 257 }, () => msg('x')) },
          { messages: { code: 'validation_length_too_long', params: { max: 256 } } },
        ],
        [
          { messages: [msg('x'.repeat(300_000)), msg('y'.repeat(300_000))] },
          { messages: { code: 'validation_length_too_long', params: { max: 524288 } } },
        ],
        [
          { messages: [msg('x')], collection: 'nope' },
          { collection: { code: 'validation_missing_collection' } },
        ],
        [
          { messages: [msg('x')], collection: 'chat_view' },
          { collection: { code: 'validation_missing_collection' } },
        ],
        [
          { messages: [msg('x')], clientId: 42 },
          { clientId: { code: 'validation_invalid_value' } },
        ],
      ]
      for (const [body, data] of cases) {
        const res = await chat(body)
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
        expect(res.body.message).toBe(
          'Failed to send the chat request: check the submitted fields.',
        )
        expect(res.body.data).toMatchObject(data)
      }
      const sizeMsg = (await chat(cases[5]![0])).body.data.messages.message
      expect(sizeMsg).toBe('The messages must total no more than 524288 bytes of content.')
    })

    it('streams deltas in order to the caller’s own connection only, then llm_done', async () => {
      const a = await Conn.open(t, users.alice!.token)
      const b = await Conn.open(t, users.bob!.token)
      const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')
      const res = await chat({ messages: [msg(words)], clientId: a.clientId })
      expect(res.status).toBe(200)
      const id = res.body.requestId as string
      await a.until((r) => r.some((e) => e.name === 'llm_done'))
      const events = a.of(id)
      const chunks = events.filter((e) => e.name === 'llm_chunk')
      expect(chunks.length).toBe(41)
      expect(chunks.map((c) => c.data.delta).join('')).toBe(res.body.reply)
      expect(chunks[1]!.data).toEqual({ requestId: id, delta: 'w0 ' })
      expect(events.at(-1)).toEqual({
        name: 'llm_done',
        data: { requestId: id, text: res.body.reply },
      })
      expect(events.map((e) => e.name).indexOf('llm_done')).toBe(41)
      // Bob's own chat reaches Bob; nothing of Alice's ever did (his connection is ordered).
      const mine = await chat(
        { messages: [msg('bob here')], clientId: b.clientId },
        users.bob!.token,
      )
      await b.until((r) => r.some((e) => e.name === 'llm_done'))
      expect(b.received.every((e) => e.data.requestId === mine.body.requestId)).toBe(true)
      expect(a.received.every((e) => e.data.requestId === id)).toBe(true)
    })

    it('pushes nothing without clientId; refuses other callers’, unknown and guest connections with 404', async () => {
      const a = await Conn.open(t, users.alice!.token)
      const silent = await chat({ messages: [msg('quiet please')] })
      expect(silent.status).toBe(200)
      const loud = await chat({ messages: [msg('now loud')], clientId: a.clientId })
      await a.until((r) => r.some((e) => e.name === 'llm_done'))
      expect(a.of(silent.body.requestId)).toEqual([])
      expect(a.received.every((e) => e.data.requestId === loud.body.requestId)).toBe(true)
      await new Promise((r) => setTimeout(r, 300))
      const before = (await usageRows()).length
      const notFound = {
        code: 404,
        status: 404,
        message:
          'No open realtime connection of yours has this clientId: connect to /api/realtime and subscribe with your own token first.',
        data: {},
      }
      // Bob may not stream into Alice's connection: the same 404 as an unknown id.
      const foreign = await chat({ messages: [msg('x')], clientId: a.clientId }, users.bob!.token)
      expect(foreign.status).toBe(404)
      expect(foreign.body).toEqual(notFound)
      const bySu = await chat({ messages: [msg('x')], clientId: a.clientId }, t.suToken)
      expect(bySu.body).toEqual(notFound)
      const unknown = await chat({ messages: [msg('x')], clientId: 'x'.repeat(40) })
      expect(unknown.body).toEqual(notFound)
      const guest = await Conn.open(t, null)
      const unbound = await chat({ messages: [msg('x')], clientId: guest.clientId })
      expect(unbound.body).toEqual(notFound)
      // Bob's API key authenticates as Bob: his own connection is his.
      const b = await Conn.open(t, users.bob!.token)
      const viaKey = await chat({ messages: [msg('key')], clientId: b.clientId }, apiKey)
      expect(viaKey.status).toBe(200)
      await b.until((r) => r.some((e) => e.name === 'llm_done'))
      // A closed connection is gone too.
      a.es.close()
      await new Promise((r) => setTimeout(r, 100))
      expect((await chat({ messages: [msg('x')], clientId: a.clientId })).body).toEqual(notFound)
      // Refused requests never reached a provider: no usage rows.
      await new Promise((r) => setTimeout(r, 300))
      expect((await usageRows()).length).toBe(before + 1)
      expect(guest.received).toEqual([])
    })

    it('persists {prompt, response, model} only when the collection’s createRule lets the caller', async () => {
      const body = (collection: string) => ({
        messages: [msg('first question'), msg('an answer', 'assistant'), msg('second question')],
        collection,
      })
      const ok = await chat(body('chats'))
      expect(ok.status).toBe(200)
      expect(ok.body.record).toMatchObject({
        collectionName: 'chats',
        prompt: 'second question',
        response: 'Echo: second question',
        model: 'echo',
      })
      const stored = await t.api('GET', `/api/collections/chats/records/${ok.body.record.id}`, {
        token: t.suToken,
      })
      expect(stored.body).toMatchObject({ prompt: 'second question', response: ok.body.reply })
      for (const name of ['denied', 'locked']) {
        const res = await chat(body(name))
        expect(res.status).toBe(200)
        expect(res.body.reply).toBe('Echo: second question')
        expect(res.body).not.toHaveProperty('record')
        const list = await t.api('GET', `/api/collections/${name}/records`, { token: t.suToken })
        expect(list.body.totalItems).toBe(0)
      }
      // A superuser passes every rule.
      const su = await chat(body('locked'), t.suToken)
      expect(su.body.record).toMatchObject({ prompt: 'second question', model: 'echo' })
    })

    it('keeps a usage row per call in _llm_usage: superusers read it, nobody writes it', async () => {
      await chat({ messages: [msg('count these four words')] }, users.bob!.token)
      await new Promise((r) => setTimeout(r, 400))
      const rows = await usageRows(`authId = "${users.bob!.id}"`)
      expect(rows.at(-1)).toMatchObject({
        authCollection: 'users',
        authId: users.bob!.id,
        provider: 'echo',
        model: 'echo',
        promptTokens: 4,
        completionTokens: 5,
        ok: true,
        error: '',
      })
      // Kept with the request logs in auxiliary.db, not in the data file.
      const aux = await otherConnection(t.dir, 'auxiliary')
      const main = await otherConnection(t.dir, 'main')
      try {
        const [count] = await aux.all<{ n: number }>('SELECT count(*) AS n FROM _llm_usage')
        expect(Number(count!.n)).toBeGreaterThanOrEqual(rows.length)
        const [inMain] = await main.all<{ n: number }>(
          onPostgres
            ? "SELECT count(*) AS n FROM pg_class WHERE relname = '_llm_usage' AND relnamespace = current_schema()::regnamespace"
            : "SELECT count(*) AS n FROM sqlite_schema WHERE name = '_llm_usage'",
        )
        expect(Number(inMain!.n)).toBe(0)
      } finally {
        await aux.close()
        await main.close()
      }
      const asUser = await t.api('GET', '/api/collections/_llm_usage/records', {
        token: users.bob!.token,
      })
      expect(asUser.status).toBe(403)
      const write = await t.api('POST', '/api/collections/_llm_usage/records', {
        token: t.suToken,
        body: { model: 'forged' },
      })
      expect(write.status).toBe(403)
      expect(write.body.message).toBe(
        'The _llm_usage records are written only by the LLM gateway: they cannot be created or changed through the records API.',
      )
      const update = await t.api('PATCH', `/api/collections/_llm_usage/records/${rows[0]!.id}`, {
        token: t.suToken,
        body: { promptTokens: 0 },
      })
      expect(update.status).toBe(403)
      // Operators prune: superusers delete rows, users cannot.
      const byUser = await t.api('DELETE', `/api/collections/_llm_usage/records/${rows[0]!.id}`, {
        token: users.bob!.token,
      })
      expect(byUser.status).toBe(403)
      const del = await t.api('DELETE', `/api/collections/_llm_usage/records/${rows[0]!.id}`, {
        token: t.suToken,
      })
      expect(del.status).toBe(204)
    })
  })

  describe('OpenAI-compatible provider (the local double)', () => {
    beforeAll(useDouble)
    afterAll(useEcho)

    it('streams the provider’s deltas in order with its usage; sends key, model and stream options', async () => {
      double.next({
        chunks: ['Hel', 'lo', ', ', 'wor', 'ld', '!'],
        usage: { prompt_tokens: 11, completion_tokens: 6 },
      })
      const a = await Conn.open(t, users.alice!.token)
      const n = double.requests.length
      const res = await chat({
        messages: [msg('You are terse.', 'system'), msg('greet me')],
        clientId: a.clientId,
        collection: 'chats',
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({
        reply: 'Hello, world!',
        promptTokens: 11,
        completionTokens: 6,
      })
      expect(res.body.record).toMatchObject({
        prompt: 'greet me',
        response: 'Hello, world!',
        model: 'tiny-model',
      })
      const seen = double.requests[n]!
      expect(seen.path).toBe('/v1/chat/completions')
      expect(seen.headers.authorization).toBe('Bearer sk-test-key')
      expect(seen.body).toEqual({
        model: 'tiny-model',
        messages: [msg('You are terse.', 'system'), msg('greet me')],
        stream: true,
        stream_options: { include_usage: true },
      })
      await a.until((r) => r.some((e) => e.name === 'llm_done'))
      expect(a.received.map((e) => [e.name, e.data.delta ?? e.data.text])).toEqual([
        ['llm_chunk', 'Hel'],
        ['llm_chunk', 'lo'],
        ['llm_chunk', ', '],
        ['llm_chunk', 'wor'],
        ['llm_chunk', 'ld'],
        ['llm_chunk', '!'],
        ['llm_done', 'Hello, world!'],
      ])
      // The key is write-only.
      const settings = await t.api('GET', '/api/settings', { token: t.suToken })
      expect(JSON.stringify(settings.body)).not.toContain('sk-test-key')
    })

    it('parses fragmented writes, CRLF lines and comments; no usage chunk counts 0 tokens', async () => {
      const text = 'Ünïcödé 🎉 split across many tiny writes, with CRLF lines.'
      double.next({ reply: text, fragmented: true, crlf: true, comments: true, noUsage: true })
      const res = await chat({ messages: [msg('go')] })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ reply: text, promptTokens: 0, completionTokens: 0 })
    })

    it('accepts a server that answers one JSON completion instead of a stream', async () => {
      const a = await Conn.open(t, users.alice!.token)
      double.next({
        json: true,
        reply: 'All at once.',
        usage: { prompt_tokens: 3, completion_tokens: 3 },
      })
      const res = await chat({ messages: [msg('go')], clientId: a.clientId })
      expect(res.body).toMatchObject({
        reply: 'All at once.',
        promptTokens: 3,
        completionTokens: 3,
      })
      await a.until((r) => r.some((e) => e.name === 'llm_done'))
      expect(a.received.map((e) => e.name)).toEqual(['llm_chunk', 'llm_done'])
    })

    it('answers 502 with the provider’s message when it refuses, and pushes llm_error', async () => {
      const a = await Conn.open(t, users.alice!.token)
      double.next({
        fail: {
          status: 429,
          message: 'You exceeded your current quota.',
          type: 'insufficient_quota',
          code: 'insufficient_quota',
        },
      })
      const res = await chat({ messages: [msg('hi')], clientId: a.clientId, collection: 'chats' })
      expect(res.status).toBe(502)
      expect(res.body).toEqual({
        code: 502,
        status: 502,
        message: 'The LLM provider answered HTTP 429: You exceeded your current quota.',
        data: {},
      })
      await a.until((r) => r.some((e) => e.name === 'llm_error'))
      expect(a.received).toEqual([
        { name: 'llm_error', data: { requestId: expect.any(String), message: res.body.message } },
      ])
      // A wrong key: the double's own 401 message comes through.
      await setLlm({ apiKey: 'wrong' })
      const bad = await chat({ messages: [msg('hi')] })
      expect(bad.status).toBe(502)
      expect(bad.body.message).toMatch(
        /^The LLM provider answered HTTP 401: Incorrect API key provided/,
      )
      await setLlm({ apiKey: 'sk-test-key', model: 'no-such-model' })
      const model = await chat({ messages: [msg('hi')] })
      expect(model.body.message).toBe(
        'The LLM provider answered HTTP 404: The model `no-such-model` does not exist or you do not have access to it.',
      )
      await setLlm({ model: 'tiny-model' })
      double.next({ fail: { status: 503, message: 'upstream down', text: true } })
      const plain = await chat({ messages: [msg('hi')] })
      expect(plain.body.message).toBe('The LLM provider answered HTTP 503: upstream down.')
      await new Promise((r) => setTimeout(r, 400))
      const failed = (await usageRows('ok = false')).map((r) => r.error)
      expect(failed).toContain(
        'The LLM provider answered HTTP 429: You exceeded your current quota.',
      )
    })

    it('a stream that breaks mid-way: the deltas so far, then llm_error and a 502; nothing persisted', async () => {
      const a = await Conn.open(t, users.alice!.token)
      const before = (await t.api('GET', '/api/collections/chats/records', { token: t.suToken }))
        .body.totalItems
      double.next({ chunks: ['one ', 'two ', 'three ', 'four'], failAfterChunks: 2 })
      const res = await chat({ messages: [msg('hi')], clientId: a.clientId, collection: 'chats' })
      expect(res.status).toBe(502)
      expect(res.body.message).toBe("The LLM provider's stream ended before it finished.")
      await a.until((r) => r.some((e) => e.name === 'llm_error'))
      expect(a.received.map((e) => e.name)).toEqual(['llm_chunk', 'llm_chunk', 'llm_error'])
      expect(a.received.map((e) => e.data.delta ?? e.data.message)).toEqual([
        'one ',
        'two ',
        "The LLM provider's stream ended before it finished.",
      ])
      const after = (await t.api('GET', '/api/collections/chats/records', { token: t.suToken }))
        .body.totalItems
      expect(after).toBe(before)
    })

    it('gives up after llm.timeout with a 504, closing the provider request (stalled or mid-stream)', async () => {
      await setLlm({ timeout: 1 })
      try {
        for (const behaviour of [
          { stall: true },
          { chunks: ['a ', 'b ', 'c'], stallAfterChunks: 1 },
        ]) {
          const a = await Conn.open(t, users.alice!.token)
          double.next(behaviour)
          const n = double.requests.length
          const started = Date.now()
          const res = await chat({ messages: [msg('hi')], clientId: a.clientId })
          const took = Date.now() - started
          expect(res.status).toBe(504)
          expect(res.body.message).toBe(
            'The LLM provider did not finish within 1 s (settings.llm.timeout).',
          )
          expect(took).toBeGreaterThanOrEqual(900)
          expect(took).toBeLessThan(10_000)
          await double.until(() => double.requests[n]?.closedByCaller === true)
          await a.until((r) => r.some((e) => e.name === 'llm_error'))
          expect(a.received.at(-1)!.data.message).toBe(res.body.message)
          expect(a.received.some((e) => e.name === 'llm_done')).toBe(false)
        }
      } finally {
        await setLlm({ timeout: 60 })
      }
    })

    it('the caller closing its request aborts the provider call', async () => {
      double.next({ stall: true })
      const n = double.requests.length
      const controller = new AbortController()
      const pending = fetch(`${t.url}/api/llm/chat`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${users.bob!.token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ messages: [msg('never mind')] }),
        signal: controller.signal,
      }).catch((err: unknown) => err)
      const seen = await double.request(n)
      expect(seen.closedByCaller).toBe(false)
      controller.abort()
      await pending
      await double.until(() => seen.closedByCaller, 3000)
      await new Promise((r) => setTimeout(r, 400))
      const rows = await usageRows(`authId = "${users.bob!.id}" && ok = false`)
      expect(rows.at(-1)).toMatchObject({
        provider: 'openai-compatible',
        model: 'tiny-model',
        error: 'The chat request was cancelled: the client closed it.',
      })
    })

    it('an unreachable provider is a 502 at once; an unknown provider name falls back to echo', async () => {
      const closed = await startOpenAiDouble()
      const deadUrl = closed.url
      await closed.close()
      await setLlm({ baseUrl: deadUrl })
      const res = await chat({ messages: [msg('hi')] })
      expect(res.status).toBe(502)
      expect(res.body.message).toMatch(/^The LLM provider could not be reached: ECONNREFUSED/)
      await setLlm({ baseUrl: double.url, provider: 'some-unknown-vendor' })
      const n = double.requests.length
      const echo = await chat({ messages: [msg('hi')] })
      expect(echo.body.reply).toBe('Echo: hi')
      expect(double.requests.length).toBe(n)
      await setLlm({ provider: 'OLLAMA' })
      expect((await chat({ messages: [msg('hi')] })).body.reply).toBe('Double says: hi')
      expect(double.requests.length).toBe(n + 1)
      await setLlm({ provider: 'openai-compatible' })
    })

    it('checks the body, the collection and the connection before calling the provider', async () => {
      const n = double.requests.length
      expect((await chat({ messages: [msg('hi')], collection: 'nope' })).status).toBe(400)
      expect((await chat({ messages: [msg('hi')], clientId: 'nope' })).status).toBe(404)
      expect((await chat({ messages: [{ role: 'tool', content: 'x' }] })).status).toBe(400)
      expect(double.requests.length).toBe(n)
    })
  })
})
