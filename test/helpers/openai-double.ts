/**
 * A local OpenAI-compatible API (integrations.md §5) on 127.0.0.1, for the LLM gateway and
 * auto-embedding tests. Self-contained: no svcbase import.
 *
 * - `POST {url}/chat/completions`: checks the Bearer key (401 in OpenAI's shape when wrong),
 *   `model` (404 `model_not_found` when unknown), `messages` (non-empty, valid roles, string
 *   content) and `stream_options` (400 unless `stream: true`). Streamed: one `data: {chunk}\n\n`
 *   per delta (`choices[0].delta.content`), the usage chunk (`choices: []`) only when
 *   `stream_options.include_usage` is asked, then `data: [DONE]`. Not streamed: one JSON
 *   `chat.completion` with `usage`.
 * - `POST {url}/embeddings`: `{input: string | string[], model, dimensions?, encoding_format?}`
 *   → `{object: "list", data: [{object: "embedding", embedding, index}], model, usage}`;
 *   embeddings are {@link doubleEmbedding} (deterministic, unit length), base64 float32 when
 *   asked.
 *
 * Knobs (a {@link Behaviour}): `double.behaviour` applies to every request; `double.next(b)`
 * queues a one-shot behaviour for the next request (chat or embeddings), taken in order. Fail
 * with an HTTP status and an OpenAI error body, close the socket after N chunks, stall (never
 * answer, or after N chunks), wait between chunks, split writes into fragments, CRLF lines and
 * `:` comments, or leave the usage chunk out (old Ollama).
 *
 * Every request is recorded in `double.requests` (path, headers, parsed body, whether the
 * caller closed it before the double finished answering).
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** How the double answers one request. */
export interface Behaviour {
  /** The reply text (default: `Double says: <last user message>`). */
  reply?: string | ((body: any) => string)
  /** The deltas to stream, overriding `reply` (default: the reply split after each space). */
  chunks?: string[]
  /** The usage reported (default: counted with {@link countTokens}). */
  usage?: { prompt_tokens: number; completion_tokens: number }
  /** Never send the usage chunk, even when asked (Ollama before 0.5.2). */
  noUsage?: boolean
  /** Answer with this HTTP status and an OpenAI error body instead. */
  fail?: {
    status: number
    message: string
    type?: string
    code?: string | null
    retryAfter?: number
    /** A plain-text body instead of the JSON error. */
    text?: boolean
  }
  /** Destroy the socket after this many content chunks (a stream that breaks mid-way). */
  failAfterChunks?: number
  /** Never answer (not even headers). */
  stall?: boolean
  /** Send this many content chunks, then hang without ending. */
  stallAfterChunks?: number
  /** Milliseconds to wait before each chunk. */
  chunkDelayMs?: number
  /** Write every event in several small fragments (tests the caller's line buffering). */
  fragmented?: boolean
  /** End lines with CRLF. */
  crlf?: boolean
  /** Send a `: keep-alive` comment line before each chunk. */
  comments?: boolean
  /** Answer one JSON `chat.completion` even when a stream was asked (servers that ignore it). */
  json?: boolean
}

/** One request the double saw. */
export interface SeenRequest {
  path: string
  method: string
  headers: IncomingHttpHeaders
  body: any
  /** The status answered (0 while streaming or stalled). */
  status: number
  /** True once the caller closed the connection before the double finished its answer. */
  closedByCaller: boolean
  /** True once the double finished its answer. */
  finished: boolean
}

export interface OpenAiDouble {
  /** The base URL, ending in `/v1` (what `settings.llm.baseUrl` takes). */
  url: string
  /** The key the double requires (`Authorization: Bearer <apiKey>`); '' accepts any or none. */
  apiKey: string
  /** Model names the double knows; empty accepts any. */
  models: string[]
  /** Applied to every request without a queued one-shot behaviour. */
  behaviour: Behaviour
  /** Every request seen, in order. */
  requests: SeenRequest[]
  /** Queues a one-shot behaviour for the next request. */
  next(behaviour: Behaviour): void
  /** Resolves with the n-th request (0-based) once it has arrived. */
  request(n: number, timeoutMs?: number): Promise<SeenRequest>
  /** Resolves once `pred` holds (polled), or rejects after `timeoutMs`. */
  until(pred: () => boolean, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

/** Options of {@link startOpenAiDouble}. */
export interface OpenAiDoubleOptions {
  apiKey?: string
  models?: string[]
  behaviour?: Behaviour
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool'])

/** The double's token count: whitespace-separated words (at least 1 for non-empty text). */
export function countTokens(text: string): number {
  return text.match(/\S+/g)?.length ?? 0
}

/**
 * The double's embedding of `text`: `dimensions` floats from SHA-256 of `text` and the index,
 * scaled to unit length. Deterministic, so tests can compare with what was stored.
 */
export function doubleEmbedding(text: string, dimensions: number): number[] {
  const out: number[] = []
  for (let i = 0; i < dimensions; i++) {
    const h = createHash('sha256').update(`${i}:${text}`).digest()
    out.push(h.readUInt32BE(0) / 0xffffffff - 0.5)
  }
  const norm = Math.sqrt(out.reduce((s, v) => s + v * v, 0)) || 1
  return out.map((v) => v / norm)
}

/** The default reply to a chat body. */
export function defaultReply(body: any): string {
  const msgs = Array.isArray(body?.messages) ? body.messages : []
  const user = [...msgs].reverse().find((m: any) => m?.role === 'user')
  return `Double says: ${String(user?.content ?? '')}`
}

function openAiError(
  status: number,
  message: string,
  type = 'invalid_request_error',
  code: string | null = null,
): { status: number; json: unknown } {
  return { status, json: { error: { message, type, param: null, code } } }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function startOpenAiDouble(options: OpenAiDoubleOptions = {}): Promise<OpenAiDouble> {
  const queued: Behaviour[] = []
  const requests: SeenRequest[] = []
  const sockets = new Set<Socket>()
  const stalled = new Set<ServerResponse>()

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      let body: any = undefined
      try {
        body = text === '' ? undefined : JSON.parse(text)
      } catch {
        body = text
      }
      const seen: SeenRequest = {
        path: (req.url ?? '').split('?')[0]!,
        method: req.method ?? '',
        headers: req.headers,
        body,
        status: 0,
        closedByCaller: false,
        finished: false,
      }
      requests.push(seen)
      res.on('close', () => {
        if (!seen.finished) seen.closedByCaller = true
        stalled.delete(res)
      })
      const behaviour = queued.shift() ?? double.behaviour
      void answer(seen, behaviour, res).catch(() => res.destroy())
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })

  const sendJson = (seen: SeenRequest, res: ServerResponse, status: number, json: unknown) => {
    seen.status = status
    seen.finished = true
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(json))
  }

  /** The first problem OpenAI would refuse a request with, or null. */
  function check(seen: SeenRequest): { status: number; json: unknown } | null {
    if (double.apiKey && seen.headers.authorization !== `Bearer ${double.apiKey}`) {
      return openAiError(
        401,
        'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
        'invalid_request_error',
        'invalid_api_key',
      )
    }
    const body = seen.body
    if (!body || typeof body !== 'object')
      return openAiError(400, 'We could not parse the JSON body of your request.')
    if (typeof body.model !== 'string' || body.model === '')
      return openAiError(400, 'you must provide a model parameter')
    if (double.models.length > 0 && !double.models.includes(body.model)) {
      return openAiError(
        404,
        `The model \`${body.model}\` does not exist or you do not have access to it.`,
        'invalid_request_error',
        'model_not_found',
      )
    }
    return null
  }

  async function answer(seen: SeenRequest, b: Behaviour, res: ServerResponse): Promise<void> {
    if (b.stall) {
      stalled.add(res)
      return
    }
    const refused = check(seen)
    if (refused) return sendJson(seen, res, refused.status, refused.json)
    if (b.fail) {
      seen.status = b.fail.status
      seen.finished = true
      const headers: Record<string, string> = {
        'content-type': b.fail.text ? 'text/plain' : 'application/json',
      }
      if (b.fail.retryAfter !== undefined) headers['retry-after'] = String(b.fail.retryAfter)
      res.writeHead(b.fail.status, headers)
      res.end(
        b.fail.text
          ? b.fail.message
          : JSON.stringify(
              openAiError(b.fail.status, b.fail.message, b.fail.type, b.fail.code ?? null).json,
            ),
      )
      return
    }
    if (seen.method !== 'POST')
      return sendJson(seen, res, 405, openAiError(405, 'Method not allowed').json)
    if (seen.path.endsWith('/chat/completions')) return chat(seen, b, res)
    if (seen.path.endsWith('/embeddings')) return embeddings(seen, res)
    sendJson(seen, res, 404, openAiError(404, `Unknown path ${seen.path}`).json)
  }

  async function chat(seen: SeenRequest, b: Behaviour, res: ServerResponse): Promise<void> {
    const body = seen.body
    const msgs = body.messages
    if (!Array.isArray(msgs) || msgs.length === 0)
      return sendJson(seen, res, 400, openAiError(400, "'messages' must be a non-empty array").json)
    for (const [i, m] of msgs.entries()) {
      if (!m || !ROLES.has(m.role) || (typeof m.content !== 'string' && !Array.isArray(m.content)))
        return sendJson(seen, res, 400, openAiError(400, `Invalid value for 'messages[${i}]'`).json)
    }
    if (body.stream_options !== undefined && body.stream !== true) {
      return sendJson(
        seen,
        res,
        400,
        openAiError(400, 'The stream_options parameter is only allowed when stream is enabled.')
          .json,
      )
    }
    const reply = typeof b.reply === 'function' ? b.reply(body) : (b.reply ?? defaultReply(body))
    const deltas = b.chunks ?? reply.match(/\S+\s*|\s+/g) ?? []
    const full = deltas.join('')
    const usage = b.usage ?? {
      prompt_tokens: msgs.reduce((s: number, m: any) => s + countTokens(String(m.content)), 0),
      completion_tokens: countTokens(full),
    }
    const usageJson = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }
    const id = `chatcmpl-${requests.length}`
    const created = Math.floor(Date.now() / 1000)
    if (body.stream !== true || b.json) {
      return sendJson(seen, res, 200, {
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [
          { index: 0, message: { role: 'assistant', content: full }, finish_reason: 'stop' },
        ],
        usage: usageJson,
      })
    }
    seen.status = 200
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const eol = b.crlf ? '\r\n' : '\n'
    // Each write resolves once flushed, so a socket destroyed after N chunks has sent them.
    const flushed = (text: string) =>
      new Promise<void>((resolve) => {
        res.write(text, () => resolve())
      })
    const write = async (data: string) => {
      const text = `data: ${data}${eol}${eol}`
      if (!b.fragmented) return flushed(text)
      for (let i = 0; i < text.length; i += 7) {
        await flushed(text.slice(i, i + 7))
        await sleep(1)
      }
    }
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
        usage: null,
      })
    await write(chunk({ role: 'assistant', content: '' }, null))
    for (const [i, delta] of deltas.entries()) {
      if (b.failAfterChunks !== undefined && i >= b.failAfterChunks) {
        seen.finished = true
        await sleep(20)
        res.socket?.destroy()
        return
      }
      if (b.stallAfterChunks !== undefined && i >= b.stallAfterChunks) {
        stalled.add(res)
        return
      }
      if (b.chunkDelayMs) await sleep(b.chunkDelayMs)
      if (res.destroyed) return
      if (b.comments) res.write(`: keep-alive${eol}${eol}`)
      await write(chunk({ content: delta }, null))
    }
    if (b.failAfterChunks !== undefined && deltas.length <= b.failAfterChunks) {
      seen.finished = true
      res.socket?.destroy()
      return
    }
    await write(chunk({}, 'stop'))
    if (body.stream_options?.include_usage === true && !b.noUsage) {
      await write(
        JSON.stringify({
          id,
          object: 'chat.completion.chunk',
          created,
          model: body.model,
          choices: [],
          usage: usageJson,
        }),
      )
    }
    await write('[DONE]')
    seen.finished = true
    res.end()
  }

  function embeddings(seen: SeenRequest, res: ServerResponse): void {
    const body = seen.body
    const input: unknown = body.input
    const inputs = typeof input === 'string' ? [input] : input
    if (
      !Array.isArray(inputs) ||
      inputs.length === 0 ||
      inputs.length > 2048 ||
      inputs.some((s) => typeof s !== 'string' || s === '')
    ) {
      return sendJson(
        seen,
        res,
        400,
        openAiError(
          400,
          "'input' must be a non-empty string or an array of 1 to 2048 non-empty strings",
        ).json,
      )
    }
    const dimensions = body.dimensions ?? 16
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 4096)
      return sendJson(seen, res, 400, openAiError(400, "Invalid 'dimensions'").json)
    const base64 = body.encoding_format === 'base64'
    const tokens = (inputs as string[]).reduce((s, t) => s + countTokens(t), 0)
    sendJson(seen, res, 200, {
      object: 'list',
      data: (inputs as string[]).map((text, index) => {
        const v = doubleEmbedding(text, dimensions)
        return {
          object: 'embedding',
          index,
          embedding: base64 ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v,
        }
      }),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    })
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const double: OpenAiDouble = {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey: options.apiKey ?? '',
    models: options.models ?? [],
    behaviour: options.behaviour ?? {},
    requests,
    next: (b) => {
      queued.push(b)
    },
    async request(n, timeoutMs = 5000) {
      await double.until(() => requests.length > n, timeoutMs)
      return requests[n]!
    },
    async until(pred, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs
      while (!pred()) {
        if (Date.now() > deadline) throw new Error('openai double: condition not met in time')
        await sleep(10)
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of stalled) res.destroy()
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
  return double
}
