/**
 * A closed-loop load generator that opens a new TCP connection for every request (`agent:
 * false`, `Connection: close`), as PocketBase's published benchmark does. autocannon only
 * keeps connections alive, so view and create are measured in this mode here as well.
 */
import { request } from 'node:http'
import { performance } from 'node:perf_hooks'
import { countFailure, probe, summarize, type Measurement, type RequestSpec } from './load.js'

function once(base: URL, spec: RequestSpec): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...spec.headers }
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json'
      headers['content-length'] = Buffer.byteLength(spec.body)
    }
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: spec.method ?? 'GET',
        path: spec.path,
        headers,
        agent: false,
      },
      (res) => {
        res.on('data', () => {})
        res.on('end', () => resolve(res.statusCode ?? 0))
        res.on('error', reject)
      },
    )
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.end(spec.body)
  })
}

async function runOnce(
  url: string,
  next: () => RequestSpec,
  connections: number,
  durationS: number,
): Promise<Measurement> {
  const base = new URL(url)
  const latencies: number[] = []
  const failures: Record<string, number> = {}
  const start = performance.now()
  const end = start + durationS * 1000
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now()
      try {
        const status = await once(base, next())
        if (status >= 200 && status < 300) latencies.push(performance.now() - t0)
        else countFailure(failures, String(status))
      } catch {
        countFailure(failures, 'socket')
      }
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
  return summarize(latencies, failures, (performance.now() - start) / 1000, connections)
}

/**
 * Measures `next()`'s requests with `connections` concurrent loops, each opening a fresh
 * connection per request: a warm-up of `warmupS`, then `durationS` measured.
 */
export async function measureFresh(
  url: string,
  next: () => RequestSpec,
  connections: number,
  durationS: number,
  warmupS: number,
): Promise<Measurement> {
  await probe(url, { next })
  if (warmupS > 0) await runOnce(url, next, connections, warmupS)
  return runOnce(url, next, connections, durationS)
}
