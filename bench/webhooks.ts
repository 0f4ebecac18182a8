/**
 * Outgoing webhooks: create throughput on `creates_open` with 3 enabled webhooks (and a push
 * trigger) on that collection, as a ratio of creates without them (target ≥ 0.8: deliveries are
 * queued in the change's transaction and sent off the request path). The webhooks point at a
 * local receiver in this process that answers 204; the row notes how many deliveries it took
 * and how long the outbox took to drain after the load.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { api } from './api.js'
import { cycle, measure, type Measurement, type RequestSpec } from './load.js'
import { round, row, withTarget, type ScenarioRow } from './report.js'
import type { Context, Step } from './scenarios.js'

const DESCRIPTION = 'A benchmark post. '.repeat(28).slice(0, 500)
const SECRET = `whsec_${Buffer.from('bench-webhook-secret-0123456789').toString('base64')}`

function creates(ctx: Context): () => RequestSpec {
  const all = ctx.data.users.map((u) => u.id)
  const bodies = all.map((author, i) =>
    JSON.stringify({
      title: `Webhook bench post ${i}`,
      description: DESCRIPTION,
      status: 'live',
      author,
      editors: [all[(i * 7) % all.length], all[(i * 13 + 1) % all.length]],
    }),
  )
  const next = cycle(bodies)
  return () => ({ method: 'POST', path: '/api/collections/creates_open/records', body: next() })
}

async function receiver() {
  let count = 0
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      count++
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/hook`,
    count: () => count,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

async function pending(ctx: Context): Promise<number> {
  const res = await api<{ totalItems: number }>(
    ctx.svc.url,
    'GET',
    '/api/collections/_webhook_outbox/records?perPage=1',
    undefined,
    ctx.superToken,
  )
  return res.totalItems
}

/** The webhooks row. */
export function webhookSteps(): Step[] {
  return [
    {
      label: 'create with 3 webhooks and a push trigger',
      async run(ctx): Promise<ScenarioRow[]> {
        const spec = { next: creates(ctx), connections: ctx.connections }
        const without: Measurement = await measure(ctx.svc.url, spec, ctx.durationS, ctx.warmupS)
        const sink = await receiver()
        const ids: string[] = []
        let trigger = 'a push trigger (no subscriptions: evaluated, nothing sent)'
        try {
          await api(
            ctx.svc.url,
            'PATCH',
            '/api/settings',
            { webhooks: { allowPrivateNetworks: true } },
            ctx.superToken,
          )
          try {
            await api(
              ctx.svc.url,
              'PATCH',
              '/api/settings',
              {
                push: {
                  triggers: [
                    {
                      enabled: true,
                      collection: 'creates_open',
                      events: 'create',
                      title: 'New post',
                      body: '{{title}}',
                      targetField: 'author',
                    },
                  ],
                },
              },
              ctx.superToken,
            )
          } catch (err) {
            trigger = `no push trigger (${String(err).slice(0, 80)})`
          }
          for (let i = 0; i < 3; i++) {
            const w = await api<{ id: string }>(
              ctx.svc.url,
              'POST',
              '/api/collections/_webhooks/records',
              {
                name: `bench ${i}`,
                url: sink.url,
                collection: 'creates_open',
                events: 'create',
                secret: SECRET,
                enabled: true,
              },
              ctx.superToken,
            )
            ids.push(w.id)
          }
          const during = await measure(ctx.svc.url, spec, ctx.durationS, ctx.warmupS)
          const stopped = performance.now()
          const left = await pending(ctx)
          while ((await pending(ctx)) > 0 && performance.now() - stopped < 120_000)
            await new Promise((r) => setTimeout(r, 200))
          const drainS = (performance.now() - stopped) / 1000
          // Again without them (webhooks disabled, outbox drained): the machine is shared, so
          // the ratio is taken against the mean of the runs before and after.
          for (const id of ids)
            await api(
              ctx.svc.url,
              'PATCH',
              `/api/collections/_webhooks/records/${id}`,
              { enabled: false },
              ctx.superToken,
            )
          // Deliveries of disabled webhooks are dropped: wait for that before measuring.
          const dropStart = performance.now()
          while ((await pending(ctx)) > 0 && performance.now() - dropStart < 60_000)
            await new Promise((r) => setTimeout(r, 200))
          const after = await measure(ctx.svc.url, spec, ctx.durationS, ctx.warmupS)
          const plain = (without.reqPerSec + after.reqPerSec) / 2
          const ratio = Math.round((during.reqPerSec / plain) * 100) / 100
          return [
            withTarget(
              {
                ...row('create with 3 webhooks and a push trigger', during),
                baselineReqPerSec: round(plain),
                ratio,
                note: `ratio to the mean of creates without them before (${round(without.reqPerSec)} req/s) and after (${round(after.reqPerSec)} req/s); ${trigger}; ${sink.count()} deliveries received (204), ${left} pending when the load stopped, outbox drained ${round(drainS)} s later`,
              },
              { ratio: 0.8 },
            ),
          ]
        } finally {
          for (const id of ids)
            await api(
              ctx.svc.url,
              'DELETE',
              `/api/collections/_webhooks/records/${id}`,
              undefined,
              ctx.superToken,
            )
          await api(
            ctx.svc.url,
            'PATCH',
            '/api/settings',
            { push: { triggers: [] } },
            ctx.superToken,
          ).catch(() => undefined)
          await sink.close()
        }
      },
    },
  ]
}
