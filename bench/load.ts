/**
 * Closed-loop load with keep-alive connections: autocannon used as a library, one warm-up run
 * followed by the measured run. Latencies are recorded from autocannon's `response` events (in
 * fractional milliseconds) rather than its integer-millisecond histogram, so p50 stays readable
 * for sub-millisecond routes.
 */
import autocannon from 'autocannon'

/** One request to send: path, and optionally method, JSON body and headers. */
export interface RequestSpec {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  path: string
  body?: string
  headers?: Record<string, string>
}

/** How a scenario loads the server. */
export interface LoadSpec {
  /** Makes the next request; called once per request, so each can differ (ids, tokens). */
  next: () => RequestSpec
  connections: number
  /** A steady overall rate in requests/s instead of a closed loop. */
  overallRate?: number
  /** Checks the JSON answer of the probe request: an error message, or undefined when fine. */
  verify?: (body: any) => string | undefined
}

/** The figures of one measured run. */
export interface Measurement {
  /** Successful (2xx) responses per second over the measured run. */
  reqPerSec: number
  p50Ms: number
  p99Ms: number
  /** Successful responses. */
  ok: number
  /** Non-2xx responses, socket errors and timeouts. */
  errors: number
  /** Failed requests by HTTP status (`socket` for errors without a response). */
  failures: Record<string, number>
  durationS: number
  connections: number
}

/** The value at percentile `p` (0–100) of ascending `sorted` values (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!
}

/** Adds `n` failures of `kind` (an HTTP status, or `socket`). */
export function countFailure(failures: Record<string, number>, kind: string, n = 1): void {
  failures[kind] = (failures[kind] ?? 0) + n
}

/** Builds a measurement from the latencies of successful responses. */
export function summarize(
  latencies: number[],
  failures: Record<string, number>,
  durationS: number,
  connections: number,
): Measurement {
  latencies.sort((a, b) => a - b)
  const errors = Object.values(failures).reduce((a, b) => a + b, 0)
  return {
    reqPerSec: latencies.length / durationS,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    ok: latencies.length,
    errors,
    failures,
    durationS,
    connections,
  }
}

function runOnce(url: string, spec: LoadSpec, durationS: number): Promise<Measurement> {
  const latencies: number[] = []
  const failures: Record<string, number> = {}
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: spec.connections,
        duration: durationS,
        timeout: 30,
        ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
        requests: [
          {
            setupRequest: (req) => {
              const r = spec.next()
              return {
                ...req,
                method: r.method ?? 'GET',
                path: r.path,
                headers: {
                  ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}),
                  ...r.headers,
                },
                ...(r.body !== undefined ? { body: r.body } : {}),
              }
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)))
        if (result.errors > 0) countFailure(failures, 'socket', result.errors)
        resolve(summarize(latencies, failures, result.duration, spec.connections))
      },
    )
    instance.on('response', (_client, status, _bytes, responseTime) => {
      if (status >= 200 && status < 300) latencies.push(responseTime)
      else countFailure(failures, String(status))
    })
  })
}

/**
 * Sends one request of `spec` and throws unless it succeeds (and passes `spec.verify`), so a
 * broken scenario fails loudly instead of measuring error responses.
 */
export async function probe(url: string, spec: Pick<LoadSpec, 'next' | 'verify'>): Promise<void> {
  const r = spec.next()
  const res = await fetch(url + r.path, {
    method: r.method ?? 'GET',
    headers: {
      ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...r.headers,
    },
    ...(r.body !== undefined ? { body: r.body } : {}),
  })
  const text = await res.text()
  const problem = !res.ok
    ? `status ${res.status}`
    : spec.verify?.(text === '' ? undefined : JSON.parse(text))
  if (problem)
    throw new Error(`probe ${r.method ?? 'GET'} ${r.path}: ${problem}: ${text.slice(0, 300)}`)
}

/** A probe, a warm-up run of `warmupS` (discarded), then the measured run of `durationS`. */
export async function measure(
  url: string,
  spec: LoadSpec,
  durationS: number,
  warmupS: number,
): Promise<Measurement> {
  await probe(url, spec)
  if (warmupS > 0) await runOnce(url, spec, warmupS)
  return runOnce(url, spec, durationS)
}

/** A round-robin over `items`. */
export function cycle<T>(items: readonly T[]): () => T {
  if (items.length === 0) throw new Error('cycle over an empty list')
  let i = 0
  return () => items[i++ % items.length]!
}

/** Shuffles a copy (Fisher–Yates), so consecutive requests touch unrelated rows. */
export function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}
