/**
 * The load client of `npm run bench:pocketbase`, as PocketBase's benchmark sends requests
 * (reference §3): one new TCP connection per request (`agent: false`), `content-type:
 * application/json` on every request, the raw token (no `Bearer `) in `Authorization`, an error
 * being a transport error or a status >= 400. Unlike upstream (which only closes the body), the
 * body is read and discarded, so a request's time runs until its last byte; the first error's
 * status and the start of its body are kept for the report. Plus a small JSON client for the
 * untimed setup (schema, ids, tokens).
 */
import { request } from 'node:http'
import { performance } from 'node:perf_hooks'

export interface Req {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  path: string
  body?: string
  token?: string
}

/** One request's outcome: its time in ms, its status (0 = transport error) and an error text. */
export interface Outcome {
  ms: number
  status: number
  error?: string
}

/** A request gets this long (ms of socket inactivity) before it counts as a transport error. */
export const REQUEST_TIMEOUT_MS = 120_000

/** Sends one request on a new connection; never rejects. */
export function send(base: URL, req: Req): Promise<Outcome> {
  const t0 = performance.now()
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json' }
    if (req.token) headers.authorization = req.token
    headers['content-length'] = req.body === undefined ? 0 : Buffer.byteLength(req.body)
    let done = false
    const finish = (status: number, error?: string) => {
      if (done) return
      done = true
      resolve({ ms: performance.now() - t0, status, ...(error !== undefined ? { error } : {}) })
    }
    const r = request(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.path,
        headers,
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0
        const failed = status >= 400
        let snippet = ''
        res.on('data', (chunk: Buffer) => {
          if (failed && snippet.length < 300) snippet += chunk.toString('utf8')
        })
        res.on('end', () => finish(status, failed ? snippet.slice(0, 300) : undefined))
        res.on('error', (err) => finish(0, `response: ${err.message}`))
      },
    )
    r.setTimeout(REQUEST_TIMEOUT_MS, () =>
      r.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS} ms`)),
    )
    r.on('error', (err: NodeJS.ErrnoException) => finish(0, err.code ?? err.message))
    r.end(req.body)
  })
}

/** What one benchmark run of a scenario collected. */
export interface RunResult {
  /** Wall time from the first launch until the last request finished (ms). */
  completedMs: number
  /** Every request's time (ms), failures included (as upstream's best/worst). */
  times: number[]
  errors: number
  /** The first failure: status (0 = transport) and the start of its body or the error. */
  firstError?: { status: number; body: string }
}

/**
 * Sends `count` requests made by `make(i)` with at most `concurrency` in flight (a new one starts
 * as soon as one finishes), every one on its own connection.
 */
export async function bench(
  url: string,
  count: number,
  concurrency: number,
  make: (i: number) => Req,
): Promise<RunResult> {
  const base = new URL(url)
  const times: number[] = new Array(count)
  let errors = 0
  let firstError: RunResult['firstError']
  let next = 0
  const start = performance.now()
  const worker = async () => {
    while (next < count) {
      const i = next++
      const o = await send(base, make(i))
      times[i] = o.ms
      if (o.status === 0 || o.status >= 400) {
        errors++
        firstError ??= { status: o.status, body: o.error ?? '' }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker))
  const completedMs = performance.now() - start
  return { completedMs, times, errors, ...(firstError ? { firstError } : {}) }
}

/** The setup client: JSON in and out with the raw token, throws on a status >= 400. */
export async function call<T = any>(
  url: string,
  method: Req['method'] | 'PUT',
  path: string,
  body?: unknown,
  token?: string,
): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = token
  const res = await fetch(url + path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const text = await res.text()
  if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 400)}`)
  return (text === '' ? undefined : JSON.parse(text)) as T
}
