/**
 * `npm run bench`: builds svcbase, seeds a PocketBase-like dataset, starts svcbase (from `dist/`)
 * and the bare baseline as separate processes, runs every scenario with autocannon in this
 * process, and writes `bench/results/runs/<date>.json` and `.md` (git-ignored);
 * `npm run bench -- --save` also updates the committed `bench/results/latest.json` and `latest.md`.
 *
 * Environment knobs (defaults in brackets): `BENCH_DURATION` seconds measured per run [6],
 * `BENCH_WARMUP` seconds of warm-up [2], `BENCH_CONNECTIONS` keep-alive connections [32],
 * `BENCH_FRESH_CONNECTIONS` loops of the new-connection runs [16], `BENCH_LARGE` rows of the
 * large posts collection [100000], `BENCH_ONLY` a regex of step labels to run, `BENCH_NO_BUILD=1`
 * to skip the build, `BENCH_CPU_PROF` a directory for a CPU profile of the svcbase process.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { superuserToken } from './api.js'
import {
  BENCH_USAGE,
  BenchUsageError,
  parseBenchArgs,
  round,
  writeReport,
  type BenchArgs,
  type Report,
  type ScenarioRow,
} from './report.js'
import { allSteps, signIn, type Context } from './scenarios.js'
import { defineCollections, seedRows, type SeedSizes } from './seed.js'
import { createSuperuser, ROOT, startBaseline, startSvcbase } from './servers.js'
import { postgresRows } from './postgres.js'
import { dashboardSizeRows, firstPageRow } from './dashboard.js'
import { workersRows } from './workers.js'
import { memoryRows } from './memory.js'

const started = performance.now()
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`
const log = (line: string) => console.log(`[${elapsed().padStart(7)}] ${line}`)

const SUPERUSER = { email: 'bench@example.com', password: 'bench-superuser-password' }
const SIZES: SeedSizes = {
  users: 1000,
  small: 10_000,
  large: env('BENCH_LARGE', 100_000),
  // 2 s warm-up + 6 s measured at ~15k deletes/s must not run out of rows.
  deletes: 2 * env('BENCH_LARGE', 100_000),
}
/** Users signed in for the scenarios that need a token. */
const SIGNED_IN = 50

/** Seeds a fresh data dir and returns the running servers with the context for the scenarios. */
async function prepare(
  tmp: string,
): Promise<Omit<Context, 'durationS' | 'warmupS' | 'connections' | 'freshConnections' | 'log'>> {
  const dir = join(tmp, 'data')
  createSuperuser(dir, SUPERUSER.email, SUPERUSER.password)
  let svc = await startSvcbase(dir)
  await defineCollections(svc.url, await superuserToken(svc.url, SUPERUSER))
  await svc.stop()
  log(`collections defined; seeding ${SIZES.users} users, ${SIZES.small} + ${SIZES.large} posts`)
  const data = seedRows(join(dir, 'data.db'), SIZES)
  const baselineDb = join(tmp, 'baseline.db')
  copyFileSync(join(dir, 'data.db'), baselineDb)
  log('seeded; starting svcbase and the baseline')
  svc = await startSvcbase(dir)
  const baseline = await startBaseline(baselineDb, [
    'posts10k',
    'posts100k',
    'creates_open',
    'creates_ruled',
  ])
  const superToken = await superuserToken(svc.url, SUPERUSER)
  const users = await signIn(svc.url, data, SIGNED_IN)
  log(`svcbase at ${svc.url} (pid ${svc.pid}), baseline at ${baseline.url} (pid ${baseline.pid})`)
  return { svc, baseline, data, users, superToken }
}

function summary(r: ScenarioRow): string {
  const parts = [r.name]
  if (r.reqPerSec !== null) parts.push(`${r.reqPerSec} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms`)
  if (r.rssMb !== undefined) parts.push(`RSS ${r.rssMb} MB`)
  if (r.ratio !== undefined) parts.push(`baseline ${r.baselineReqPerSec} req/s, ratio ${r.ratio}`)
  if (r.errors) parts.push(`${r.errors} failed ${JSON.stringify(r.failures)}`)
  if (r.met !== undefined) parts.push(r.met ? 'target met' : `MISSED ${r.target}`)
  return parts.join(' | ')
}

/** Runs every step (or those `BENCH_ONLY` matches); a failing step becomes a row with a note. */
async function runSteps(ctx: Context): Promise<ScenarioRow[]> {
  const rows: ScenarioRow[] = []
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null
  for (const step of allSteps()) {
    if (only && !only.test(step.label)) continue
    log(`${step.label} …`)
    try {
      for (const r of await step.run(ctx)) {
        rows.push(r)
        log(`  ${summary(r)}`)
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      log(`  FAILED: ${message}`)
      const note = `failed: ${message.split('\n')[0]}`
      rows.push({ name: step.label, reqPerSec: null, p50Ms: null, p99Ms: null, note })
    }
  }
  return rows
}

/**
 * A group of rows measured by its own module (`bench/workers.ts`, `bench/postgres.ts`), selected
 * by its label with BENCH_ONLY; a failure becomes a row with a note.
 */
async function runGroup(label: string, fn: () => Promise<ScenarioRow[]>): Promise<ScenarioRow[]> {
  if (process.env.BENCH_ONLY && !new RegExp(process.env.BENCH_ONLY, 'i').test(label)) return []
  log(`${label} …`)
  try {
    const rows = await fn()
    for (const r of rows) log(`  ${summary(r)}`)
    return rows
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    log(`  FAILED: ${message}`)
    return [
      {
        name: label,
        reqPerSec: null,
        p50Ms: null,
        p99Ms: null,
        note: `failed: ${message.split('\n')[0]}`,
      },
    ]
  }
}

async function main(args: BenchArgs): Promise<void> {
  if (process.env.BENCH_NO_BUILD !== '1') {
    log('building svcbase (npm run build)')
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' })
  }
  const tmp = mkdtempSync(join(tmpdir(), 'svcbase-bench-'))
  const rows: ScenarioRow[] = []
  let ctx: Context | undefined
  try {
    ctx = {
      ...(await prepare(tmp)),
      durationS: env('BENCH_DURATION', 6),
      warmupS: env('BENCH_WARMUP', 2),
      connections: env('BENCH_CONNECTIONS', 32),
      freshConnections: env('BENCH_FRESH_CONNECTIONS', 16),
      log,
    }
    const c = ctx
    rows.push(
      ...(await runGroup('memory: idle RSS of fresh svcbase and baseline processes', () =>
        memoryRows(c, join(tmp, 'data'), join(tmp, 'baseline.db'), tmp),
      )),
    )
    rows.push(...(await runSteps(ctx)))
    rows.push(
      ...(await runGroup('workers: --workers 2 vs --workers 1 (wrk)', () =>
        workersRows(c, join(tmp, 'data')),
      )),
    )
    rows.push(
      ...(await runGroup('postgres: view, list and create on PostgreSQL', () =>
        postgresRows(c, join(tmp, 'baseline.db'), tmp, SUPERUSER),
      )),
    )
    rows.push(
      ...(await runGroup('dashboard: bundle size and the first page of posts100k', async () => {
        const signIn = await fetch(`${c.svc.url}/api/collections/_superusers/auth-with-password`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ identity: SUPERUSER.email, password: SUPERUSER.password }),
        })
        const auth = (await signIn.json()) as { token: string; record: unknown }
        return [
          ...dashboardSizeRows(join(ROOT, 'dist', 'ui')),
          await firstPageRow(c.svc.url, auth.token, auth.record, 'posts100k', SIZES.large),
        ]
      })),
    )
    rows.push({
      name: 'server RSS after all scenarios',
      reqPerSec: null,
      p50Ms: null,
      p99Ms: null,
      rssMb: round(ctx.svc.rssMb()),
    })
  } finally {
    if (ctx) await Promise.all([ctx.svc.stop(), ctx.baseline.stop()])
    rmSync(tmp, { recursive: true, force: true })
  }
  const report: Report = {
    node: process.version,
    cores: cpus().length,
    date: new Date().toISOString(),
    scenarios: rows,
  }
  const total = elapsed()
  const notes = [
    `Each run: ${ctx.warmupS} s warm-up, then ${ctx.durationS} s measured; closed loop. Keep-alive rows with a baseline measure svcbase and the baseline in three alternating slices of ${ctx.durationS / 3} s each (svcbase, baseline, baseline, svcbase, svcbase, baseline) after a warm-up of each, so drift of the machine falls on both alike; new-connection rows measure svcbase, then the baseline. Keep-alive runs use autocannon with ${ctx.connections} connections unless the row says otherwise (concurrency 1 rows: 1; password auth: 8; thumbnail generation: 4); new-connection rows open a fresh TCP connection per request from ${ctx.freshConnections} concurrent loops.`,
    'svcbase runs from `dist/` as its own process; the baseline is plain Fastify + better-sqlite3 (same pragmas) over a copy of the same SQLite file, in another process; the load generator is a third process on the same 2 cores.',
    `Data: ${SIZES.users} users, posts collections of ${SIZES.small} and ${SIZES.large} rows (~500-character description, a select, an author relation, an editors multi relation, an index on created). Rule scenarios sign in as ${SIGNED_IN} users in turn.`,
    'The `PostgreSQL:` rows: svcbase with `serve --db=postgres://…` against a bare Fastify + pg baseline (the same pool size, JSON read as text) over a copy of the same tables in another schema of the same throwaway PostgreSQL 15 cluster (scripts/postgres.sh, fsync on, synchronous_commit off), rows copied from the seeded SQLite file; their ratio is svcbase on PostgreSQL ÷ that baseline.',
    'The `--workers 2 vs --workers 1` rows: `serve --workers 2` over the same data folder beside the one-process server, both measured with wrk (keep-alive, 1 thread, the same connections) pinned to core 0 by `taskset -c 0`, in slices 1, 2, 2, 1 after a warm-up of each; their baseline column is `--workers 1` and their ratio is 2 ÷ 1.',
    'Ratio = svcbase req/s ÷ baseline req/s. PocketBase figures are its published CAX11 (2 vCPU) results, measured with a new connection per request.',
    `Total run time: ${total}.`,
  ]
  const files = await writeReport(join(ROOT, 'bench', 'results'), report, notes, args.save)
  log(`wrote ${files.join(' and ')}`)
  log(`total run time ${total}`)
}

let args: BenchArgs
try {
  args = parseBenchArgs(process.argv.slice(2))
} catch (err) {
  if (!(err instanceof BenchUsageError)) throw err
  console.error(`error: ${err.message}\n\n${BENCH_USAGE}`)
  process.exit(2)
}
if (args.help) {
  console.log(BENCH_USAGE)
} else {
  main(args).catch((err: unknown) => {
    console.error(err)
    process.exit(1)
  })
}
