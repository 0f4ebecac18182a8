/**
 * Backup scenarios on the seeded database (the 100k-post collection and the rest): one backup
 * timed on an idle server with the server's peak RSS growth sampled meanwhile; create throughput
 * while backups run back to back, as a ratio of create throughput without them (target ≥ 0.7);
 * and a restore of that archive, timed from the request to the restored data being served (the
 * server restarts in its own process).
 */
import { performance } from 'node:perf_hooks'
import { api } from './api.js'
import { cycle, measure, type Measurement, type RequestSpec } from './load.js'
import { round, row, withTarget, type ScenarioRow } from './report.js'
import type { Context, Step } from './scenarios.js'

const DESCRIPTION = 'A benchmark post. '.repeat(28).slice(0, 500)

/** Create bodies for the `creates_open` collection (no rule). */
function creates(ctx: Context): () => RequestSpec {
  const all = ctx.data.users.map((u) => u.id)
  const bodies = all.map((author, i) =>
    JSON.stringify({
      title: `Backup bench post ${i}`,
      description: DESCRIPTION,
      status: 'live',
      author,
      editors: [all[(i * 7) % all.length], all[(i * 13 + 1) % all.length]],
    }),
  )
  const next = cycle(bodies)
  return () => ({ method: 'POST', path: '/api/collections/creates_open/records', body: next() })
}

/** Takes one backup named `name`; resolves to its duration in seconds. */
async function backup(ctx: Context, name: string): Promise<number> {
  const started = performance.now()
  await api(ctx.svc.url, 'POST', '/api/backups', { name }, ctx.superToken)
  return (performance.now() - started) / 1000
}

/** Samples the server's RSS every 50 ms while `work` runs; resolves to its result and the peak. */
async function sampled<T>(ctx: Context, work: Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peakMb = ctx.svc.rssMb()
  const timer = setInterval(() => (peakMb = Math.max(peakMb, ctx.svc.rssMb())), 50)
  try {
    const value = await work
    peakMb = Math.max(peakMb, ctx.svc.rssMb())
    return { value, peakMb }
  } finally {
    clearInterval(timer)
  }
}

const plain = (name: string, extra: Partial<ScenarioRow>): ScenarioRow => ({
  name,
  reqPerSec: null,
  p50Ms: null,
  p99Ms: null,
  ...extra,
})

/** The backup and restore rows. */
export function backupSteps(): Step[] {
  return [
    {
      label: 'backup and restore of the 100k-post database',
      async run(ctx) {
        const rows: ScenarioRow[] = []
        // 1. One backup on an idle server: seconds and peak RSS growth.
        const before = ctx.svc.rssMb()
        const { value: seconds, peakMb } = await sampled(ctx, backup(ctx, 'bench_idle.zip'))
        const list = await api<{ key: string; size: number }[]>(
          ctx.svc.url,
          'GET',
          '/api/backups',
          undefined,
          ctx.superToken,
        )
        const size = list.find((b) => b.key === 'bench_idle.zip')?.size ?? 0
        rows.push(
          plain('backup of the seeded database (idle server)', {
            seconds: round(seconds),
            archiveMb: round(size / 1024 / 1024),
            rssGrowthMb: round(peakMb - before),
            note: `${round(seconds)} s, archive ${round(size / 1024 / 1024)} MB; server RSS ${round(before)} MB → peak ${round(peakMb)} MB (growth ${round(peakMb - before)} MB)`,
          }),
        )

        // 2. Create throughput without a backup, then while backups run back to back.
        const spec = { next: creates(ctx), connections: ctx.connections }
        const without: Measurement = await measure(ctx.svc.url, spec, ctx.durationS, ctx.warmupS)
        let running = true
        let taken = 0
        let busyS = 0
        const loop = (async () => {
          for (let i = 0; running; i++) {
            busyS += await backup(ctx, `bench_busy_${i}.zip`)
            taken++
            await api(
              ctx.svc.url,
              'DELETE',
              `/api/backups/bench_busy_${i}.zip`,
              undefined,
              ctx.superToken,
            )
          }
        })()
        let during: Measurement
        const windowStarted = performance.now()
        let windowS = 0
        try {
          during = await measure(ctx.svc.url, spec, ctx.durationS, ctx.warmupS)
        } finally {
          windowS = (performance.now() - windowStarted) / 1000
          running = false
          await loop
        }
        const ratio = Math.round((during.reqPerSec / without.reqPerSec) * 100) / 100
        rows.push(
          withTarget(
            {
              ...row('create while backups run back to back', during),
              baselineReqPerSec: round(without.reqPerSec),
              ratio,
              backupsTaken: taken,
              note: `ratio to creates without a backup (${round(without.reqPerSec)} req/s); ${taken} backups of ${round(busyS / Math.max(taken, 1))} s each back to back over the ${round(windowS)} s of warm-up and measure`,
            },
            { ratio: 0.7 },
          ),
        )

        // 3. Restore the idle archive: from the request to the restored data being served.
        const marker = await api<{ id: string }>(
          ctx.svc.url,
          'POST',
          '/api/collections/creates_open/records',
          JSON.parse(spec.next().body!),
        )
        const started = performance.now()
        await api(
          ctx.svc.url,
          'POST',
          '/api/backups/bench_idle.zip/restore',
          undefined,
          ctx.superToken,
        )
        const answered = (performance.now() - started) / 1000
        // The marker was created after the backup: once it is gone, the restored data serves.
        for (;;) {
          const res = await fetch(
            `${ctx.svc.url}/api/collections/creates_open/records/${marker.id}`,
          ).catch(() => null)
          if (res?.status === 404) break
          await new Promise((r) => setTimeout(r, 20))
        }
        const total = (performance.now() - started) / 1000
        rows.push(
          plain('restore of that archive (to the restored data served)', {
            seconds: round(total),
            note: `${round(total)} s; checks and extraction before the 204: ${round(answered)} s, then stop, swap, start in the same process`,
          }),
        )
        await api(ctx.svc.url, 'DELETE', '/api/backups/bench_idle.zip', undefined, ctx.superToken)
        return rows
      },
    },
  ]
}
