/**
 * Realtime scenarios over raw SSE connections: fan-out (N subscribed clients, records created at
 * a steady rate, events delivered per second and delivery latency) and the server's memory with
 * many idle clients connected.
 */
import { request, type ClientRequest } from 'node:http'
import { performance } from 'node:perf_hooks'
import { api, mapLimit } from './api.js'
import { measure, percentile, type Measurement } from './load.js'
import { round, row, withTarget, type ScenarioRow } from './report.js'
import type { Step } from './scenarios.js'
import type { ServerProcess } from './servers.js'

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
const epochMs = () => performance.timeOrigin + performance.now()

/** One SSE connection to `GET /api/realtime`, parsed into events. */
export class SseClient {
  /** Resolves with the client id of the first (`SVC_CONNECT`) event. */
  readonly clientId: Promise<string>
  private req: ClientRequest | undefined

  constructor(url: string, onEvent: (event: string, data: string) => void) {
    this.clientId = new Promise((resolve, reject) => {
      const base = new URL(url)
      this.req = request(
        { host: base.hostname, port: base.port, path: '/api/realtime', agent: false },
        (res) => {
          if (res.statusCode !== 200) return reject(new Error(`realtime: ${res.statusCode}`))
          res.setEncoding('utf8')
          let buffer = ''
          res.on('data', (chunk: string) => {
            buffer += chunk
            let end: number
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const block = buffer.slice(0, end)
              buffer = buffer.slice(end + 2)
              let event = 'message'
              const data: string[] = []
              for (const line of block.split('\n')) {
                if (line.startsWith('event:')) event = line.slice(6).trim()
                else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
              }
              if (data.length === 0) continue
              const text = data.join('\n')
              if (event === 'SVC_CONNECT')
                resolve((JSON.parse(text) as { clientId: string }).clientId)
              else onEvent(event, text)
            }
          })
        },
      )
      this.req.on('error', reject)
      this.req.end()
    })
  }

  /** Subscribes this client (as a guest) to `topics`. */
  async subscribe(url: string, topics: string[]): Promise<void> {
    await api(url, 'POST', '/api/realtime', {
      clientId: await this.clientId,
      subscriptions: topics,
    })
  }

  close(): void {
    this.req?.destroy()
  }
}

async function connectMany(
  url: string,
  count: number,
  topic: string,
  onEvent: (event: string, data: string) => void,
): Promise<SseClient[]> {
  const clients: SseClient[] = []
  try {
    for (let i = 0; i < count; i++) clients.push(new SseClient(url, onEvent))
    await Promise.all(clients.map((c) => c.clientId))
    await mapLimit(clients, 16, (c) => c.subscribe(url, [topic]))
    return clients
  } catch (err) {
    for (const c of clients) c.close()
    throw err
  }
}

/** What a fan-out run delivered. */
export interface FanOutResult {
  creates: Measurement
  /** Events received across all clients per second of the create run. */
  deliveredPerSec: number
  delivered: number
  /** Creates that succeeded × clients: what should have arrived. */
  expected: number
  /** Delivery latency: receipt time minus the create's send time. */
  p50Ms: number
  p99Ms: number
}

/**
 * Connects `clients` SSE clients subscribed to `rt`, creates `rt` records at `rate` per second
 * for `durationS`, and waits up to 5 s for the last events to arrive.
 */
export async function fanOut(
  url: string,
  clients: number,
  rate: number,
  durationS: number,
): Promise<FanOutResult> {
  const latencies: number[] = []
  const sockets = await connectMany(url, clients, 'rt', (event, data) => {
    if (event !== 'rt') return
    const sentAt = (JSON.parse(data) as { record: { sentAt: number } }).record.sentAt
    latencies.push(epochMs() - sentAt)
  })
  try {
    const creates = await measure(
      url,
      {
        connections: 8,
        overallRate: rate,
        next: () => ({
          method: 'POST',
          path: '/api/collections/rt/records',
          body: JSON.stringify({ title: 'fan-out', sentAt: epochMs() }),
        }),
      },
      durationS,
      0,
    )
    const expected = creates.ok * clients
    const deadline = Date.now() + 5000
    while (latencies.length < expected && Date.now() < deadline) await sleep(50)
    latencies.sort((a, b) => a - b)
    return {
      creates,
      deliveredPerSec: latencies.length / creates.durationS,
      delivered: latencies.length,
      expected,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
    }
  } finally {
    for (const s of sockets) s.close()
  }
}

/** The server's memory with idle clients connected. */
export interface IdleMemoryResult {
  rssBeforeMb: number
  rssMb: number
  clients: number
}

/**
 * Connects `count` SSE clients, each subscribed to `rt`, lets them sit idle for `idleS`, then
 * reads the server's VmRSS.
 */
export async function idleMemory(
  server: ServerProcess,
  count: number,
  idleS: number,
): Promise<IdleMemoryResult> {
  const rssBeforeMb = server.rssMb()
  const clients = await connectMany(server.url, count, 'rt', () => {})
  try {
    await sleep(idleS * 1000)
    return { rssBeforeMb, rssMb: server.rssMb(), clients: clients.length }
  } finally {
    for (const c of clients) c.close()
    await sleep(500)
  }
}

/** The realtime steps: idle memory with 1 000 SSE clients, then fan-out to 100 clients. */
export function realtimeSteps(): Step[] {
  return [
    {
      label: 'idle SSE clients (memory)',
      async run(ctx) {
        // 1 000 streams from one address: above the default caps (`connections` settings: 500
        // connections, 100 streams per IP), lifted for this row and put back after it.
        const caps = (maxConnectionsPerIP: number, maxRealtimePerIP: number) =>
          api(
            ctx.svc.url,
            'PATCH',
            '/api/settings',
            { connections: { maxConnectionsPerIP, maxRealtimePerIP } },
            ctx.superToken,
          )
        await caps(0, 0)
        // Idle means idle: 8 s lets the server's on-demand workers (bcrypt, used by the sign-ins
        // just before) stop, as they do on any quiet server.
        const r = await idleMemory(ctx.svc, 1000, 8).finally(() => caps(500, 100))
        const memory: ScenarioRow = {
          name: `idle memory: ${r.clients} SSE clients connected (server RSS; ${round(r.rssBeforeMb)} MB before they connected)`,
          reqPerSec: null,
          p50Ms: null,
          p99Ms: null,
          connections: r.clients,
          rssMb: round(r.rssMb),
          rssBeforeMb: round(r.rssBeforeMb),
        }
        return [withTarget(memory, { rssMbMax: 150 })]
      },
    },
    {
      label: 'realtime fan-out',
      async run(ctx) {
        const clients = 100
        const rate = 200
        const r = await fanOut(ctx.svc.url, clients, rate, ctx.durationS)
        return [
          {
            ...row(
              `realtime fan-out: ${clients} SSE clients, ${rate} creates/s (events/s delivered)`,
              {
                ...r.creates,
                reqPerSec: r.deliveredPerSec,
                p50Ms: r.p50Ms,
                p99Ms: r.p99Ms,
              },
            ),
            connections: clients,
            delivered: r.delivered,
            expected: r.expected,
            createsPerSec: round(r.creates.reqPerSec),
            ...(r.delivered < r.expected
              ? {
                  note: `${r.expected - r.delivered} of ${r.expected} events not delivered within 5 s`,
                }
              : {}),
          },
        ]
      },
    },
  ]
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
