/**
 * Runs the benchmark's groups against one started server, through its HTTP API only: the schema
 * (`schema.ts`) imported as a superuser, the create scenarios (which also make the data the auth
 * and search groups read: they run untimed when the create group is not asked for), then auth
 * and search. Rules and indexes are PATCHed per scenario and reset to §1 values after it. Random
 * picks (relations of created records, the user whose token is sent) come from a seeded PRNG over
 * ids listed by the API in a content order, so both servers get the same logical data.
 */
import { performance } from 'node:perf_hooks'
import { bench, call, type Req, type RunResult } from './client.js'
import { benchmarkCollections, DESCRIPTION, resetRules, type Size } from './schema.js'
import { allScenarios, type Group, type Scenario } from './scenarios.js'
import { dataSize, RssSampler, SUPERUSER, type BenchServer } from './servers.js'
import { spread, type Spread } from './stats.js'

export interface ScenarioResult extends Spread {
  row: number
  name: string
  group: Group
  completedMs: number
  errors: number
  firstError?: { status: number; body: string }
  /** S4: the PATCHes sent beside the list (not timed). */
  background?: { reqs: number; errors: number; firstError?: { status: number; body: string } }
  /** A setup step (rule change, id listing, token) failed: the scenario did not run. */
  setupError?: string
}

export type ServerKey = 'pocketbase' | 'svcbase' | 'svcbase-pg'

export interface ServerRun {
  server: ServerKey
  round: number
  loadavg: number[]
  idleRssMb: number
  peakRssMb: number
  groupPeakRssMb: Partial<Record<Group, number>>
  /** The data folder after the create group. */
  data?: { bytes: number; biggest: { file: string; bytes: number }[] }
  /** svcbase on PostgreSQL: `pg_database_size` after the create group. */
  pgDatabaseBytes?: number
  scenarios: ScenarioResult[]
  wallS: number
}

export interface RunOptions {
  groups: readonly Group[]
  sizes: readonly Size[]
  only: RegExp | null
  cooldownMs: number
  log: (line: string) => void
  /** Called after the create group (e.g. to read a PostgreSQL database's size). */
  afterCreate?: () => Promise<number | undefined>
}

/** mulberry32: a small seeded PRNG, the same sequence on every server. */
export function prng(seed: number): (n: number) => number {
  let a = seed >>> 0
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const TYPES = ['a', 'b', 'c', 'd']

/** Whether a scenario is measured (its group asked for, its size included, `--only` matching). */
export function selected(s: Scenario, o: Pick<RunOptions, 'groups' | 'sizes' | 'only'>): boolean {
  if (!o.groups.includes(s.group)) return false
  if (s.size && !o.sizes.includes(s.size)) return false
  return !o.only || o.only.test(s.name)
}

class Run {
  private su = ''
  private orgIds: string[] = []
  private permIds: string[] = []
  private userIds: string[] = []
  private tokens = new Map<number, { id: string; token: string }>()

  constructor(
    private readonly server: BenchServer,
    private readonly o: RunOptions,
  ) {}

  private get url() {
    return this.server.url
  }

  private admin<T = any>(method: 'GET' | 'PATCH' | 'PUT' | 'POST', path: string, body?: unknown) {
    return call<T>(this.url, method, path, body, this.su)
  }

  async schema(): Promise<void> {
    const auth = await call(this.url, 'POST', '/api/collections/_superusers/auth-with-password', {
      identity: SUPERUSER.email,
      password: SUPERUSER.password,
    })
    this.su = auth.token
    const collections = benchmarkCollections()
    await this.admin('PUT', '/api/collections/import', { collections, deleteMissing: false })
    // A fresh server's `users` has `name` and `avatar`, kept by the import: §1's has neither.
    const users = collections.find((c) => c.name === 'users')!
    await this.admin('PATCH', '/api/collections/users', { fields: users.fields })
  }

  private reset(col: string) {
    return this.admin('PATCH', `/api/collections/${col}`, resetRules(col))
  }

  private async count(col: string): Promise<number> {
    const page = await this.admin<{ totalItems: number }>(
      'GET',
      `/api/collections/${col}/records?perPage=1`,
    )
    return page.totalItems
  }

  /** Every id of `col`, ordered by the number at the end of `field` (organizations7 → 7). */
  private async ids(col: string, field: string): Promise<string[]> {
    const all: { id: string; n: number }[] = []
    for (let page = 1; ; page++) {
      const q = `?perPage=500&page=${page}&skipTotal=1&fields=id,${field}`
      const res = await this.admin<{ items: Record<string, string>[] }>(
        'GET',
        `/api/collections/${col}/records${q}`,
      )
      for (const it of res.items)
        all.push({ id: it.id!, n: Number(/\d+$/.exec(it[field]!)?.[0] ?? -1) })
      if (res.items.length < 500) break
    }
    return all.sort((a, b) => a.n - b.n).map((x) => x.id)
  }

  /** The token of a random user (seeded), signed in with its password. */
  private async user(seed: number): Promise<{ id: string; token: string }> {
    const known = this.tokens.get(seed)
    if (known) return known
    if (this.userIds.length === 0) this.userIds = await this.ids('users', 'username')
    const k = prng(seed)(this.userIds.length)
    const res = await call(this.url, 'POST', '/api/collections/users/auth-with-password', {
      identity: `users${k}@example.com`,
      password: '1234567890',
    })
    const u = { id: res.record.id as string, token: res.token as string }
    this.tokens.set(seed, u)
    return u
  }

  /** Builds the request maker of a scenario (setup included: rules, ids, tokens). */
  private async prepare(s: Scenario): Promise<{ make: (i: number) => Req; background?: Req[] }> {
    const col = s.collection
    const pick = prng(s.row * 7919 + 1)
    const path = `/api/collections/${col}/records`
    if (s.group === 'create') {
      await this.admin('PATCH', `/api/collections/${col}`, { createRule: s.rule })
      const before = await this.count(col)
      const body = (x: unknown) => JSON.stringify(x)
      const post = (b: unknown, token?: string): Req => ({
        method: 'POST',
        path,
        body: body(b),
        ...(token ? { token } : {}),
      })
      if (s.kind === 'organizations')
        return { make: (i) => post({ name: `organizations${before + i}` }) }
      if (s.kind === 'permissions') {
        return { make: (i) => post({ name: `permissions${before + i}`, active: i % 2 === 0 }) }
      }
      if (s.kind === 'users') {
        if (this.orgIds.length === 0) this.orgIds = await this.ids('organizations', 'name')
        if (this.permIds.length === 0) this.permIds = await this.ids('permissions', 'name')
        const org = this.orgIds
        const perm = this.permIds
        return {
          make: (i) => {
            const n = before + i
            return post({
              email: `users${n}@example.com`,
              username: `users${n}`,
              name: `users${n}`,
              organization: org[pick(org.length)],
              permissions: [
                perm[pick(perm.length)],
                perm[pick(perm.length)],
                perm[pick(perm.length)],
              ],
              password: '1234567890',
              passwordConfirm: '1234567890',
            })
          },
        }
      }
      this.userIds = await this.ids('users', 'username')
      const users = this.userIds
      const token = s.auth ? (await this.user(1001)).token : undefined
      return {
        make: (i) =>
          post(
            {
              title: `${col}${before + i}`,
              description: DESCRIPTION,
              public: i % 2 === 1,
              type: [TYPES[pick(4)], TYPES[pick(4)]],
              author: users[pick(users.length)],
            },
            token,
          ),
      }
    }
    if (s.kind === 'auth-password') {
      const b = JSON.stringify({ identity: 'users0@example.com', password: '1234567890' })
      return {
        make: () => ({
          method: 'POST',
          path: '/api/collections/users/auth-with-password',
          body: b,
        }),
      }
    }
    if (s.kind === 'auth-refresh') {
      const { token } = await this.user(1002)
      return {
        make: () => ({ method: 'POST', path: '/api/collections/users/auth-refresh', token }),
      }
    }
    const { id, token } = await this.user(1003)
    await this.reset(col)
    if (s.kind === 'get-one') {
      await this.admin('PATCH', `/api/collections/${col}`, { listRule: s.rule })
      return { make: () => ({ method: 'GET', path: `${path}/${id}`, token }) }
    }
    await this.admin('PATCH', `/api/collections/${col}`, { listRule: s.rule, indexes: s.indexes })
    const list: Req = { method: 'GET', path: `${path}${s.query}`, token }
    if (!s.background) return { make: () => list }
    const q = `?perPage=${s.background}&sort=@random&skipTotal=1&fields=id`
    const res = await this.admin<{ items: { id: string }[] }>('GET', `${path}${q}`)
    const background = res.items.map((it): Req => {
      const b = JSON.stringify({ title: `update${it.id}` })
      return { method: 'PATCH', path: `${path}/${it.id}`, body: b, token }
    })
    return { make: () => list, background }
  }

  async scenario(s: Scenario, measured: boolean): Promise<ScenarioResult> {
    const base = { row: s.row, name: s.name, group: s.group }
    let prepared: Awaited<ReturnType<Run['prepare']>>
    try {
      prepared = await this.prepare(s)
    } catch (err) {
      const setupError = err instanceof Error ? err.message : String(err)
      return { ...base, ...spread([]), completedMs: Number.NaN, errors: 0, setupError }
    }
    if (measured) await sleep(this.o.cooldownMs)
    const bg = prepared.background
    const [res, bgRes] = await Promise.all([
      bench(this.url, s.reqs, s.conc, prepared.make),
      bg ? bench(this.url, bg.length, bg.length, (i) => bg[i]!) : Promise.resolve(undefined),
    ])
    const out: ScenarioResult = { ...base, ...summary(res) }
    if (bgRes) {
      out.background = {
        reqs: bg!.length,
        errors: bgRes.errors,
        ...(bgRes.firstError ? { firstError: bgRes.firstError } : {}),
      }
    }
    return out
  }

  async afterScenario(s: Scenario, next: Scenario | undefined): Promise<void> {
    // Rules back to §1 when the next scenario works on another collection (the create pairs'
    // "resetSchema(false)", the search group's end); the search scenarios reset before they run.
    if (!next || next.collection !== s.collection || next.group !== s.group)
      await this.reset(s.collection)
  }
}

function summary(res: RunResult) {
  return {
    completedMs: res.completedMs,
    ...spread(res.times),
    errors: res.errors,
    ...(res.firstError ? { firstError: res.firstError } : {}),
  }
}

/** Runs the groups of `o` on a started server (fresh data dir); the caller stops it. */
export async function runServer(
  server: BenchServer,
  key: ServerKey,
  round: number,
  loadavg: number[],
  o: RunOptions,
): Promise<ServerRun> {
  const t0 = performance.now()
  const sampler = new RssSampler(() => server.rssMb())
  const run = new Run(server, o)
  await run.schema()
  await sleep(1000)
  const idleRssMb = sampler.last
  sampler.endPhase()
  const out: ServerRun = {
    server: key,
    round,
    loadavg,
    idleRssMb,
    peakRssMb: 0,
    groupPeakRssMb: {},
    scenarios: [],
    wallS: 0,
  }
  const all = allScenarios().filter((s) => !s.size || o.sizes.includes(s.size))
  for (const group of ['create', 'auth', 'search'] as const) {
    // The create scenarios always run (they make the data), measured or not.
    const list = all.filter((s) => s.group === group && (group === 'create' || selected(s, o)))
    if (list.length === 0) continue
    for (const [i, s] of list.entries()) {
      const measured = selected(s, o)
      const r = await run.scenario(s, measured)
      await run.afterScenario(s, list[i + 1])
      if (!measured) continue
      out.scenarios.push(r)
      o.log(progress(server.name, r))
    }
    out.groupPeakRssMb[group] = sampler.endPhase()
    if (group === 'create') {
      // NB: after a cooldown, as the next scenario would: the data at rest, not mid-checkpoint.
      await sleep(o.cooldownMs)
      out.data = dataSize(server.dataDir)
      const pg = await o.afterCreate?.()
      if (pg !== undefined) out.pgDatabaseBytes = pg
    }
  }
  sampler.stop()
  out.peakRssMb = sampler.peak
  out.wallS = (performance.now() - t0) / 1000
  return out
}

function progress(server: string, r: ScenarioResult): string {
  const name = r.name.length > 70 ? `${r.name.slice(0, 67)}...` : r.name
  if (r.setupError) return `${server} #${r.row} ${name}: SETUP FAILED ${r.setupError}`
  const time = (r.completedMs / 1000).toFixed(3)
  let line = `${server} #${r.row} ${name}: ${time} s, errors ${r.errors}`
  if (r.firstError) line += ` (first: ${r.firstError.status} ${r.firstError.body.slice(0, 80)})`
  if (r.background) line += `, background PATCH errors ${r.background.errors}/${r.background.reqs}`
  return line
}
