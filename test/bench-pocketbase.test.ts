/**
 * `npm run bench:pocketbase` without the oracle: its scenario table against the reference
 * (shared/reference/pocketbase-benchmarks.md §2.1–2.3), its statistics, its command line and
 * the report rendered from a small fake result.
 */
import { describe, expect, it } from 'vitest'
import { isPartial, parseArgs, roundOrder, UsageError } from '../bench/pocketbase/args.js'
import { renderMarkdown, type BenchResult } from '../bench/pocketbase/report.js'
import { prng, selected, type ScenarioResult, type ServerRun } from '../bench/pocketbase/runner.js'
import { allScenarios, LIST_SCENARIOS } from '../bench/pocketbase/scenarios.js'
import { benchmarkCollections, DESCRIPTION, resetRules } from '../bench/pocketbase/schema.js'
import { formatMs, median, percentile, ratio, spread } from '../bench/pocketbase/stats.js'

const byRow = (row: number) => allScenarios().find((s) => s.row === row)!

describe('the scenario table', () => {
  it('has rows #1–#132: 14 creates, 4 auth, 2 getOne and 28 lists per posts collection', () => {
    const all = allScenarios()
    expect(all.map((s) => s.row)).toEqual(Array.from({ length: 132 }, (_, i) => i + 1))
    expect(all.filter((s) => s.group === 'create')).toHaveLength(14)
    expect(all.filter((s) => s.group === 'auth')).toHaveLength(4)
    expect(all.filter((s) => s.kind === 'get-one')).toHaveLength(2)
    expect(LIST_SCENARIOS).toHaveLength(28)
    for (const size of ['10k', '25k', '50k', '100k'] as const) {
      expect(all.filter((s) => s.kind === 'list' && s.size === size)).toHaveLength(28)
    }
    // 20 + 28 per posts collection of the search group.
    expect(all.filter((s) => s.group === 'search')).toHaveLength(2 + 4 * 28)
  })

  it('creates with upstream counts, concurrency, rules and names', () => {
    expect(byRow(1)).toMatchObject({ collection: 'organizations', reqs: 50, conc: 10, rule: '' })
    expect(byRow(2).name).toBe(
      'Creating 50 organizations [reqs:50, conc:10, rule:`"@request.body.name != \'\'"`]',
    )
    expect(byRow(5).name).toBe('Creating 250 users [reqs:250, conc:50, rule:`""`]')
    expect(byRow(6).rule).toBe("@request.body.email != '' && @request.body.permissions:length > 0")
    expect(byRow(7)).toMatchObject({ collection: 'posts10k', reqs: 5000, conc: 500, auth: false })
    expect(byRow(8)).toMatchObject({
      rule: "@request.auth.id != '' && @request.body.public:isset = true",
      auth: true,
    })
    expect(byRow(14)).toMatchObject({ collection: 'posts100k', reqs: 50000, conc: 500 })
  })

  it('auth and getOne as upstream', () => {
    expect(byRow(15)).toMatchObject({ kind: 'auth-password', reqs: 250, conc: 250, auth: false })
    expect(byRow(16).name).toBe(
      'users auth with email/pass - small concurrency [reqs:250, conc:10]',
    )
    expect(byRow(17)).toMatchObject({ kind: 'auth-refresh', reqs: 1000, conc: 1000, auth: true })
    expect(byRow(19)).toMatchObject({ kind: 'get-one', reqs: 1000, conc: 100, rule: '' })
    expect(byRow(20).conc).toBe(1000)
  })

  it('lists with the reference queries, rules and index SQL (row = 20 + 28k + S)', () => {
    expect(byRow(21).name).toBe(
      'posts10k - simpleA (many requests, no rules, no concurrency) [reqs:1000, conc:1, rule:`""`, query:`?perPage=20`]',
    )
    expect(byRow(24)).toMatchObject({ background: 300, conc: 1000, query: '?perPage=20' })
    expect(byRow(24).name).toContain('300 concurrent random posts10k updates')
    expect(byRow(28).query).toBe(
      '?perPage=20&expand=author.permissions&fields=id,collectionId,expand.author.id,expand.author.expand.permissions.id',
    )
    expect(byRow(20 + 28 * 3 + 11)).toMatchObject({
      collection: 'posts100k',
      rule: 'author = @request.auth.id',
      indexes: ['create index `idx_author_posts100k` on posts100k (author)'],
    })
    expect(byRow(20 + 28 + 18)).toMatchObject({
      collection: 'posts25k',
      query: '?perPage=20&skipTotal=1',
      indexes: ['create index `idx_descriptions_posts25k` on posts25k (description)'],
    })
    expect(byRow(20 + 19).rule).toBe("type:each != 'c'")
    expect(byRow(20 + 56 + 27)).toMatchObject({
      collection: 'posts50k',
      rule: 'author.permissions.active ?= true',
      indexes: [],
      reqs: 100,
      conc: 10,
    })
    expect(byRow(20 + 23).rule).toBe("author.organization.name != 'test'")
  })

  it('selects by group, size and --only', () => {
    const o = { groups: ['search'] as const, sizes: ['10k'] as const, only: /simpleB/i }
    const picked = allScenarios().filter((s) =>
      selected(s, { ...o, groups: [...o.groups], sizes: [...o.sizes] }),
    )
    expect(picked.map((s) => s.row)).toEqual([22])
  })
})

describe('the schema', () => {
  it('is §1: ids, rules, the 480-character description', () => {
    const cols = benchmarkCollections()
    expect(cols.map((c) => c.name)).toEqual([
      'organizations',
      'permissions',
      'users',
      'posts10k',
      'posts25k',
      'posts50k',
      'posts100k',
    ])
    expect(cols.find((c) => c.name === 'posts50k')!.id).toBe('3wb14jxop88yw2j')
    const users = cols.find((c) => c.name === 'users') as { fields: { name: string }[] }
    expect(users.fields.map((f) => f.name)).toEqual([
      'id',
      'password',
      'tokenKey',
      'email',
      'emailVisibility',
      'verified',
      'username',
      'organization',
      'permissions',
      'created',
      'updated',
    ])
    expect(resetRules('organizations').listRule).toBe("@request.auth.id != ''")
    expect(resetRules('posts10k')).toMatchObject({ listRule: '', indexes: [] })
    expect(DESCRIPTION).toHaveLength(480)
  })
})

describe('statistics and arguments', () => {
  it('median, percentiles, spread, ratio, durations', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 2, 3])).toBe(2.5)
    expect(Number.isNaN(median([]))).toBe(true)
    const times = Array.from({ length: 100 }, (_, i) => 100 - i)
    expect(
      percentile(
        [...times].sort((a, b) => a - b),
        95,
      ),
    ).toBe(95)
    expect(spread(times)).toEqual({ bestMs: 1, worstMs: 100, p50Ms: 50, p95Ms: 95 })
    expect(ratio(50, 200)).toBe(0.25)
    expect(formatMs(0.5)).toBe('500 µs')
    expect(formatMs(2631.2556)).toBe('2.631 s')
    expect(formatMs(61_764)).toBe('1 m 01.8 s')
  })

  it('a seeded PRNG gives the same picks every time', () => {
    const a = prng(42)
    const b = prng(42)
    const seq = Array.from({ length: 20 }, () => a(500))
    expect(Array.from({ length: 20 }, () => b(500))).toEqual(seq)
    expect(seq.every((n) => n >= 0 && n < 500)).toBe(true)
  })

  it('parses the command line and refuses a partial --save', () => {
    const d = parseArgs([])
    expect(d).toMatchObject({ rounds: 1, cooldownMs: 2000, db: false, save: false })
    expect(d.sizes).toEqual(['10k', '25k', '50k', '100k'])
    expect(isPartial(d)).toBe(false)
    const p = parseArgs(['--sizes=100k,10k', '--rounds=3', '--cooldown=0', '--db'])
    expect(p).toMatchObject({ sizes: ['10k', '100k'], rounds: 3, cooldownMs: 0, db: true })
    expect(() => parseArgs(['--save', '--only=simpleA'])).toThrow(UsageError)
    expect(() => parseArgs(['--save', '--sizes=10k'])).toThrow(/--save-partial/)
    expect(parseArgs(['--save', '--sizes=10k', '--save-partial']).save).toBe(true)
    expect(() => parseArgs(['--sizes=20k'])).toThrow(/unknown "20k"/)
    expect(() => parseArgs(['--rounds=0'])).toThrow(UsageError)
    expect(d.workers).toBe(1)
    expect(parseArgs(['--workers=2']).workers).toBe(2)
    expect(isPartial(parseArgs(['--workers=2']))).toBe(true)
    expect(() => parseArgs(['--workers=0'])).toThrow(UsageError)
    expect(roundOrder(1, false)).toEqual(['pocketbase', 'svcbase'])
    expect(roundOrder(2, true)).toEqual(['svcbase-pg', 'svcbase', 'pocketbase'])
  })
})

describe('the report', () => {
  const scenario = (row: number, completedMs: number, extra: Partial<ScenarioResult> = {}) => ({
    row,
    name: byRow(row).name,
    group: byRow(row).group,
    completedMs,
    bestMs: 1,
    worstMs: 9,
    p50Ms: 4,
    p95Ms: 8,
    errors: 0,
    ...extra,
  })
  const run = (server: ServerRun['server'], round: number, s: ScenarioResult[]): ServerRun => ({
    server,
    round,
    loadavg: [0.5, 0.4, 0.3],
    idleRssMb: server === 'pocketbase' ? 28 : 80,
    peakRssMb: 200,
    groupPeakRssMb: { create: 150, search: 200 },
    data: { bytes: 10 * 1024 * 1024, biggest: [{ file: 'data.db', bytes: 8 * 1024 * 1024 }] },
    scenarios: s,
    wallS: 60,
  })
  const result: BenchResult = {
    date: '2026-01-01T00:00:00.000Z',
    commit: 'abc1234',
    pocketbase: { version: '0.40.4', bin: '/x/pocketbase', source: 'POCKETBASE_BIN' },
    node: 'v20.0.0',
    cpus: 2,
    cpuModel: 'Test CPU',
    loadavg: [0.1, 0.2, 0.3],
    options: {},
    servers: ['pocketbase', 'svcbase'],
    runs: [
      run('pocketbase', 1, [scenario(1, 100), scenario(21, 2000)]),
      run('svcbase', 1, [
        scenario(1, 50),
        scenario(21, 3000, { errors: 2, firstError: { status: 503, body: '{"code":503}' } }),
      ]),
      run('svcbase', 2, [scenario(1, 70), scenario(21, 5000)]),
      run('pocketbase', 2, [scenario(1, 300), scenario(21, 2000)]),
    ],
    totalS: 600,
  }

  it('renders medians, ratios, errors, first errors, RSS and data size', () => {
    const md = renderMarkdown(result, 'npm run bench:pocketbase')
    expect(md).toContain('PocketBase 0.40.4, Node v20.0.0, 2 × Test CPU')
    expect(md).toContain('commit abc1234')
    // #1: PB median of 100 and 300 = 200 ms, svcbase of 50 and 70 = 60 ms → 0.30.
    expect(md).toMatch(
      /\| 1 \| Creating 50 organizations .* \| 200 ms \| 60\.0 ms \| 0\.30 \| 0 \/ 0 \|/,
    )
    // #21: 2 s against 4 s → 2.00, 2 errors over the rounds.
    expect(md).toMatch(
      /\| 21 \| posts10k - simpleA .* \| 2\.000 s \| 4\.000 s \| 2\.00 \| 0 \/ 2 \|/,
    )
    expect(md).toContain('## create')
    expect(md).toContain('## search')
    expect(md).not.toContain('## auth')
    expect(md).toContain('svcbase, round 1, #21: 2 errors, first: status 503 `{"code":503}`')
    expect(md).toContain('**PocketBase** RSS: idle after start and schema 28 MiB')
    expect(md).toContain('data folder after create: 10.0 MiB (biggest: data.db 8.0 MiB)')
    expect(md).not.toContain('svcbase PG')
  })
})
