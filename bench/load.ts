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

/** What one run collected, before it is summarised. */
interface RawRun {
  latencies: number[]
  failures: Record<string, number>
  durationS: number
}

function runOnce(url: string, spec: LoadSpec, durationS: number): Promise<RawRun> {
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
        resolve({ latencies, failures, durationS: result.duration })
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
  return combine([await runOnce(url, spec, durationS)], spec.connections)
}

/** One measurement from several runs of the same load. */
function combine(runs: RawRun[], connections: number): Measurement {
  const failures: Record<string, number> = {}
  for (const r of runs)
    for (const [k, n] of Object.entries(r.failures)) countFailure(failures, k, n)
  return summarize(
    runs.flatMap((r) => r.latencies),
    failures,
    runs.reduce((t, r) => t + r.durationS, 0),
    connections,
  )
}

/** One side of a paired measurement. */
export interface Target {
  url: string
  spec: LoadSpec
}

/**
 * Measures two servers under the same kind of load for a ratio: both are probed and warmed up,
 * then measured in `rounds` alternating slices of `durationS / rounds` seconds each (A B, B A,
 * A B, …), so drift of the machine during the pair (other processes, CPU frequency, a log
 * backlog being written) falls on both sides alike.
 */
export async function measurePair(
  a: Target,
  b: Target,
  durationS: number,
  warmupS: number,
  rounds = 3,
): Promise<{ a: Measurement; b: Measurement }> {
  await probe(a.url, a.spec)
  await probe(b.url, b.spec)
  if (warmupS > 0) {
    await runOnce(a.url, a.spec, warmupS)
    await runOnce(b.url, b.spec, warmupS)
  }
  const runs = { a: [] as RawRun[], b: [] as RawRun[] }
  const slice = durationS / rounds
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)
    for (const side of order) {
      const t = side === 'a' ? a : b
      runs[side].push(await runOnce(t.url, t.spec, slice))
    }
  }
  return {
    a: combine(runs.a, a.spec.connections),
    b: combine(runs.b, b.spec.connections),
  }
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
