/**
 * The LLM gateway with the echo provider (`llm.enabled` false, the default): throughput of
 * `POST /api/llm/chat` as users, beside `POST /api/files/token` (the cheapest authenticated POST
 * of svcbase, measured in the same run: the ratio is what the gateway costs over auth and body
 * parsing), and the time from sending a chat to its first `llm_chunk` on the caller's realtime
 * connection (sequential chats, one connection bound to the user).
 */
import { performance } from 'node:perf_hooks'
import { api } from './api.js'
import { cycle, measurePair, percentile, type RequestSpec } from './load.js'
import { SseClient } from './realtime.js'
import { round, row, type ScenarioRow } from './report.js'
import type { Context, Step } from './scenarios.js'

/** A 24-word prompt: the echo reply streams 25 chunks. */
const PROMPT =
  'Summarise the benchmark results for the team in two short sentences please, ' +
  'keeping the numbers exact and the tone neutral, thank you very much.'
const CHAT = JSON.stringify({
  messages: [
    { role: 'system', content: 'You are a concise assistant.' },
    { role: 'user', content: PROMPT },
  ],
})
/** Sequential chats timed to their first `llm_chunk`. */
const FIRST_CHUNK_SAMPLES = Number(process.env.BENCH_LLM_SAMPLES ?? 300)

function authed(ctx: Context, path: string, body: string): () => RequestSpec {
  const tokens = cycle(ctx.users.map((u) => u.token))
  return () => ({
    method: 'POST',
    path,
    body,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens()}` },
  })
}

async function throughput(ctx: Context): Promise<ScenarioRow> {
  // Interleaved slices of both loads on the same server, so machine drift falls on both.
  const { a: chat, b: token } = await measurePair(
    {
      url: ctx.svc.url,
      spec: {
        next: authed(ctx, '/api/llm/chat', CHAT),
        connections: ctx.connections,
        verify: (b: { reply?: unknown; completionTokens?: unknown }) =>
          typeof b?.reply === 'string' && b.completionTokens === 25
            ? undefined
            : 'not an echo reply of 25 tokens',
      },
    },
    {
      url: ctx.svc.url,
      spec: { next: authed(ctx, '/api/files/token', '{}'), connections: ctx.connections },
    },
    ctx.durationS,
    ctx.warmupS,
  )
  return row('LLM chat, echo provider (baseline: POST /api/files/token)', chat, {
    baseline: token,
    note: `25 llm chunks per reply, none pushed (no clientId); baseline = svcbase's files/token, interleaved in the same run`,
  })
}

async function firstChunk(ctx: Context): Promise<ScenarioRow> {
  const user = ctx.users[0]!
  let onFirst: ((at: number) => void) | null = null
  let onDone: (() => void) | null = null
  let chunks = 0
  const sse = new SseClient(ctx.svc.url, (event) => {
    if (event === 'llm_chunk') {
      chunks++
      const f = onFirst
      onFirst = null
      f?.(performance.now())
    } else if (event === 'llm_done') onDone?.()
  })
  try {
    const clientId = await sse.clientId
    await api(
      ctx.svc.url,
      'POST',
      '/api/realtime',
      { clientId, subscriptions: ['llm_chunk', 'llm_done'] },
      user.token,
    )
    const body = { ...(JSON.parse(CHAT) as object), clientId }
    const latencies: number[] = []
    const answered: number[] = []
    const started = performance.now()
    for (let i = 0; i < FIRST_CHUNK_SAMPLES; i++) {
      // The next chat starts only after this one's llm_done: no late chunk is mistaken for its first.
      const first = new Promise<number>((resolve) => (onFirst = resolve))
      const done = new Promise<void>((resolve) => (onDone = resolve))
      const t0 = performance.now()
      const reply = api(ctx.svc.url, 'POST', '/api/llm/chat', body, user.token)
      latencies.push((await first) - t0)
      await reply
      answered.push(performance.now() - t0)
      await done
    }
    const seconds = (performance.now() - started) / 1000
    latencies.sort((a, b) => a - b)
    answered.sort((a, b) => a - b)
    return {
      name: 'LLM chat, time to first llm_chunk (sequential, one connection)',
      reqPerSec: round(FIRST_CHUNK_SAMPLES / seconds),
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      connections: 1,
      note:
        `${FIRST_CHUNK_SAMPLES} chats, ${chunks} llm_chunk events received; p50/p99 = first chunk; ` +
        `HTTP answer p50 ${round(percentile(answered, 50))} ms, p99 ${round(percentile(answered, 99))} ms`,
    }
  } finally {
    sse.close()
  }
}

/** The LLM rows (`BENCH_ONLY=llm`). */
export function llmSteps(): Step[] {
  return [
    {
      label: 'llm chat (echo provider)',
      run: async (ctx) => [await throughput(ctx), await firstChunk(ctx)],
    },
  ]
}
