/**
 * The scenarios: each measures svcbase and, where there is a bare-stack equivalent, the baseline
 * right after it (interleaved per pair, so both see the same machine state), and returns report
 * rows. The bare-stack ratio is the floor, shown as information: the performance targets are the
 * ratios to PocketBase on its own benchmark (`npm run bench:pocketbase`, bench/pocketbase/). Rows
 * whose baseline is svcbase itself without a feature (an index, backups, webhooks) keep a target.
 */
import { api, mapLimit } from './api.js'
import { backupSteps } from './backups.js'
import { measureFresh } from './fresh-conn.js'
import {
  cycle,
  measure,
  measurePair,
  shuffled,
  type LoadSpec,
  type Measurement,
  type RequestSpec,
} from './load.js'
import { llmSteps } from './llm.js'
import { mcpSteps } from './mcp.js'
import { pushSteps } from './push.js'
import { realtimeSteps } from './realtime.js'
import { row, type ScenarioRow } from './report.js'
import { USER_PASSWORD, type SeedData } from './seed.js'
import { vectorSteps } from './vectors.js'
import { webhookSteps } from './webhooks.js'
import type { ServerProcess } from './servers.js'
import { thumbnailScenarios } from './thumbs.js'

/** A signed-in user. */
export interface SignedIn {
  id: string
  token: string
}

/** What every scenario gets. */
export interface Context {
  svc: ServerProcess
  baseline: ServerProcess
  data: SeedData
  users: SignedIn[]
  superToken: string
  /** Seconds measured per run, after `warmupS` of warm-up. */
  durationS: number
  warmupS: number
  /** Connections of the keep-alive runs. */
  connections: number
  /** Concurrent loops of the new-connection runs. */
  freshConnections: number
  log: (line: string) => void
}

/** One step of the run: a label for progress and the rows it produces. */
export interface Step {
  label: string
  run: (ctx: Context) => Promise<ScenarioRow[]>
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

const DESCRIPTION = 'A benchmark post. '.repeat(28).slice(0, 500)

/** Create bodies for `authors`, each with two editors, as JSON text. */
function postBodies(authors: readonly string[], all: readonly string[]): string[] {
  return authors.map((author, i) =>
    JSON.stringify({
      title: `Bench post ${i}`,
      description: DESCRIPTION,
      status: 'live',
      author,
      editors: [all[(i * 7) % all.length], all[(i * 13 + 1) % all.length]],
    }),
  )
}

/** Measures svcbase and the baseline in alternating slices, with the same connections and timings. */
async function pair(
  ctx: Context,
  svc: LoadSpec,
  base: LoadSpec,
): Promise<{ s: Measurement; b: Measurement }> {
  const { a: s, b } = await measurePair(
    { url: ctx.svc.url, spec: svc },
    { url: ctx.baseline.url, spec: base },
    ctx.durationS,
    ctx.warmupS,
  )
  return { s, b }
}

const get = (path: string, headers?: Record<string, string>): (() => RequestSpec) => {
  const spec: RequestSpec = { path, ...(headers ? { headers } : {}) }
  return () => spec
}

function viewSteps(): Step[] {
  const view = (ctx: Context) => {
    const ids = cycle(shuffled(ctx.data.smallIds))
    return {
      svc: () => ({ path: `/api/collections/posts10k/records/${ids()}` }),
      base: () => ({ path: `/posts/posts10k/${ids()}` }),
    }
  }
  return [
    {
      label: 'view one record',
      async run(ctx) {
        const v = view(ctx)
        const c = ctx.connections
        const { s, b } = await pair(
          ctx,
          { next: v.svc, connections: c },
          { next: v.base, connections: c },
        )
        return [
          row('view one record (posts10k)', s, {
            baseline: b,
          }),
        ]
      },
    },
    {
      label: 'view one record, new connection per request',
      async run(ctx) {
        const v = view(ctx)
        const c = ctx.freshConnections
        const s = await measureFresh(ctx.svc.url, v.svc, c, ctx.durationS, ctx.warmupS)
        const b = await measureFresh(ctx.baseline.url, v.base, c, ctx.durationS, ctx.warmupS)
        return [
          row('view one record, new connection per request', s, {
            baseline: b,
            mode: 'new-connection',
          }),
        ]
      },
    },
  ]
}

function listSteps(): Step[] {
  const list =
    (table: string, skipTotal: boolean, connections: number) =>
    async (ctx: Context): Promise<{ s: Measurement; b: Measurement }> => {
      const q = `perPage=20&sort=-created${skipTotal ? '&skipTotal=1' : ''}`
      const total = skipTotal
        ? -1
        : table === 'posts10k'
          ? ctx.data.smallIds.length
          : ctx.data.largeIds.length
      return pair(
        ctx,
        {
          next: get(`/api/collections/${table}/records?${q}`),
          connections,
          verify: (b) =>
            b.items.length !== 20 || b.totalItems !== total
              ? `expected 20 items and totalItems ${total}`
              : undefined,
        },
        {
          next: get(`/posts/${table}?limit=20${skipTotal ? '' : '&total=1'}`),
          connections,
          verify: (b) =>
            b.items.length !== 20 || (!skipTotal && b.totalItems !== total)
              ? `expected 20 items${skipTotal ? '' : ` and totalItems ${total}`}`
              : undefined,
        },
      )
    }
  const steps: Step[] = []
  for (const [table, size] of [
    ['posts10k', '10k'],
    ['posts100k', '100k'],
  ] as const) {
    for (const skipTotal of [true, false]) {
      const name = `list 20 of ${size}${skipTotal ? ', skipTotal' : ', with total'}`
      steps.push({
        label: name,
        async run(ctx) {
          const { s, b } = await list(table, skipTotal, ctx.connections)(ctx)
          // NB: with total, the baseline runs its own `SELECT COUNT(*)` too.
          return [row(name, s, { baseline: b })]
        },
      })
    }
  }
  // PocketBase's list figures are at concurrency 1.
  for (const skipTotal of [false, true]) {
    const name = `list 20 of 10k${skipTotal ? ', skipTotal' : ', with total'}, concurrency 1`
    steps.push({
      label: name,
      async run(ctx) {
        const { s, b } = await list('posts10k', skipTotal, 1)(ctx)
        return [row(name, s, { baseline: b })]
      },
    })
  }
  return steps
}

function createSteps(): Step[] {
  const open = (ctx: Context) => {
    const all = ctx.data.users.map((u) => u.id)
    const bodies = cycle(postBodies(shuffled(all), all))
    return {
      svc: (): RequestSpec => ({
        method: 'POST',
        path: '/api/collections/creates_open/records',
        body: bodies(),
      }),
      base: (): RequestSpec => ({ method: 'POST', path: '/posts/creates_open', body: bodies() }),
    }
  }
  return [
    {
      label: 'create, no rule',
      async run(ctx) {
        const o = open(ctx)
        const c = ctx.connections
        const { s, b } = await pair(
          ctx,
          { next: o.svc, connections: c },
          { next: o.base, connections: c },
        )
        return [
          row('create, no rule (createRule "")', s, {
            baseline: b,
          }),
        ]
      },
    },
    {
      label: 'create with a rule',
      async run(ctx) {
        const all = ctx.data.users.map((u) => u.id)
        const bodies = postBodies(
          ctx.users.map((u) => u.id),
          all,
        )
        const reqs = cycle(
          ctx.users.map((u, i): RequestSpec => ({
            method: 'POST',
            path: '/api/collections/creates_ruled/records',
            body: bodies[i],
            headers: bearer(u.token),
          })),
        )
        const baseReqs = cycle(
          bodies.map((body): RequestSpec => ({
            method: 'POST',
            path: '/posts/creates_ruled',
            body,
          })),
        )
        const c = ctx.connections
        const { s, b } = await pair(
          ctx,
          { next: reqs, connections: c },
          { next: baseReqs, connections: c },
        )
        return [
          row('create with a rule (signed in, author = @request.auth.id)', s, {
            baseline: b,
          }),
        ]
      },
    },
    {
      label: 'create with a multi-relation index',
      async run(ctx) {
        const all = ctx.data.users.map((u) => u.id)
        const bodies = cycle(postBodies(shuffled(all), all))
        const to = (collection: string): LoadSpec => ({
          next: (): RequestSpec => ({
            method: 'POST',
            path: `/api/collections/${collection}/records`,
            body: bodies(),
          }),
          connections: ctx.connections,
        })
        // NB: both sides are svcbase, in alternating slices: the price of the junction table.
        const { a: s, b } = await measurePair(
          { url: ctx.svc.url, spec: to('creates_indexed') },
          { url: ctx.svc.url, spec: to('creates_open') },
          ctx.durationS,
          ctx.warmupS,
        )
        // The price of one ordinary index on a relation (random values), for comparison.
        const one = await measurePair(
          { url: ctx.svc.url, spec: to('creates_author_idx') },
          { url: ctx.svc.url, spec: to('creates_open') },
          ctx.durationS,
          ctx.warmupS,
        )
        const note = 'baseline = the same creates into a collection without the index, same process'
        return [
          row('create with a multi-relation index (junction of editors, 2 items)', s, {
            baseline: b,
            note,
            goal: { ratio: 0.9 },
          }),
          row('create with an index on author (a single relation, 1 item)', one.a, {
            baseline: one.b,
            note,
          }),
        ]
      },
    },
    {
      label: 'create, new connection per request',
      async run(ctx) {
        const o = open(ctx)
        const c = ctx.freshConnections
        const s = await measureFresh(ctx.svc.url, o.svc, c, ctx.durationS, ctx.warmupS)
        const b = await measureFresh(ctx.baseline.url, o.base, c, ctx.durationS, ctx.warmupS)
        return [
          row('create, no rule, new connection per request', s, {
            baseline: b,
            mode: 'new-connection',
          }),
        ]
      },
    },
  ]
}

/**
 * A list of 20 as the signed-in users, in turn. The probe checks a full page came back: a rule
 * that matched nothing would answer an empty list, fast and wrong.
 */
function signedInList(ctx: Context, collection: string): LoadSpec {
  return {
    next: cycle(
      ctx.users.map((u) => ({
        path: `/api/collections/${collection}/records?perPage=20&sort=-created`,
        headers: bearer(u.token),
      })),
    ),
    connections: ctx.connections,
    verify: (b) => (b.items.length !== 20 ? 'expected 20 items' : undefined),
  }
}

function ruleSteps(): Step[] {
  const owned = (indexed: boolean): Step => ({
    label: `list with author = @request.auth.id, ${indexed ? 'indexed' : 'no index'}`,
    async run(ctx) {
      if (indexed) {
        await api(
          ctx.svc.url,
          'PATCH',
          '/api/collections/owned100k',
          {
            indexes: [
              'CREATE INDEX idx_owned100k_created ON owned100k (created)',
              'CREATE INDEX idx_owned100k_author ON owned100k (author)',
            ],
          },
          ctx.superToken,
        )
      }
      const m = await measure(
        ctx.svc.url,
        signedInList(ctx, 'owned100k'),
        ctx.durationS,
        ctx.warmupS,
      )
      const how = indexed ? 'index on author' : 'no index on author'
      return [row(`list 20 of 100k, rule author = @request.auth.id, ${how}`, m)]
    },
  })
  return [
    owned(false),
    owned(true),
    ...(
      [
        ['shared10k', 'editors:each ?= @request.auth.id'],
        ['shared10k_id', 'editors.id ?= @request.auth.id'],
      ] as const
    ).map(([collection, rule]): Step => ({
      label: `list with a multi-relation rule ${rule}`,
      async run(ctx) {
        const m = await measure(
          ctx.svc.url,
          signedInList(ctx, collection),
          ctx.durationS,
          ctx.warmupS,
        )
        return [row(`list 20 of 10k, rule ${rule}`, m)]
      },
    })),
  ]
}

function authSteps(): Step[] {
  return [
    {
      label: 'auth-refresh',
      async run(ctx) {
        const next = cycle(
          ctx.users.map((u): RequestSpec => ({
            method: 'POST',
            path: '/api/collections/users/auth-refresh',
            headers: bearer(u.token),
          })),
        )
        const m = await measure(
          ctx.svc.url,
          { next, connections: ctx.connections },
          ctx.durationS,
          ctx.warmupS,
        )
        return [row('auth-refresh', m)]
      },
    },
    {
      label: 'password auth',
      async run(ctx) {
        const next = cycle(
          ctx.data.users.map((u): RequestSpec => ({
            method: 'POST',
            path: '/api/collections/users/auth-with-password',
            body: JSON.stringify({ identity: u.email, password: USER_PASSWORD }),
          })),
        )
        const m = await measure(ctx.svc.url, { next, connections: 8 }, ctx.durationS, ctx.warmupS)
        return [row('password auth (bcrypt cost 10)', m)]
      },
    },
  ]
}

function deleteStep(): Step {
  return {
    label: 'delete',
    async run(ctx) {
      const ids = shuffled(ctx.data.deleteIds)
      let i = 0
      // Past the seeded ids, requests 404 and count as errors in the row.
      const next = (): RequestSpec => ({
        method: 'DELETE',
        path: `/api/collections/deletes/records/${ids[i++] ?? 'xxxxxxxxxxxxxxx'}`,
      })
      const m = await measure(
        ctx.svc.url,
        { next, connections: ctx.connections },
        ctx.durationS,
        ctx.warmupS,
      )
      return [row('delete one record', m)]
    },
  }
}

/** Signs in `count` seeded users and returns their tokens. */
export async function signIn(url: string, data: SeedData, count: number): Promise<SignedIn[]> {
  return mapLimit(data.users.slice(0, count), 4, async (u) => {
    const res = await api<{ token: string }>(
      url,
      'POST',
      '/api/collections/users/auth-with-password',
      {
        identity: u.email,
        password: USER_PASSWORD,
      },
    )
    return { id: u.id, token: res.token }
  })
}

/** Every step, in run order: memory on the fresh server first, reads before writes, deletes last. */
export function allSteps(): Step[] {
  const [idle, fanOut] = realtimeSteps()
  return [
    idle!,
    ...viewSteps(),
    ...listSteps(),
    ...ruleSteps(),
    ...authSteps(),
    ...createSteps(),
    fanOut!,
    ...thumbnailScenarios(),
    deleteStep(),
    ...backupSteps(),
    ...webhookSteps(),
    ...pushSteps(),
    ...llmSteps(),
    ...mcpSteps(),
    ...vectorSteps(),
  ]
}
