/**
 * `npm run bench:pocketbase`: PocketBase's own benchmark (groups create, auth, search; reference
 * `shared/reference/pocketbase-benchmarks.md`) run side by side against the real PocketBase and
 * svcbase (and with `--db` svcbase on PostgreSQL), one server at a time on a fresh data dir, the
 * order alternating between rounds. Writes `bench/results/runs/pocketbase-<date>.{md,json}`
 * (git-ignored) and with `--save` `bench/results/pocketbase.{md,json}`. Refuses (exit 1, before
 * any table) when PocketBase cannot be found or started.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import * as prettier from 'prettier'
import { ROOT } from '../servers.js'
import { parseArgs, roundOrder, USAGE, UsageError, type Args } from './args.js'
import { renderMarkdown, type BenchResult } from './report.js'
import { runServer, type ServerKey, type ServerRun } from './runner.js'
import {
  findPocketbase,
  RefusedError,
  startPocketbase,
  startPostgres,
  startSvcbaseFresh,
  type BenchServer,
  type Postgres,
} from './servers.js'

const started = performance.now()
const log = (line: string) => {
  const s = ((performance.now() - started) / 1000).toFixed(0).padStart(5)
  console.log(`[${s} s] ${line}`)
}

function gitCommit(): string {
  try {
    const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim()
    return dirty ? `${hash} (with uncommitted changes)` : hash
  } catch {
    return 'unknown'
  }
}

async function pgQuery<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql)).rows as T[]
  } finally {
    await client.end()
  }
}

async function runOne(
  key: ServerKey,
  round: number,
  args: Args,
  pbBin: string,
  postgres: Postgres | null,
): Promise<ServerRun> {
  const tmp = mkdtempSync(join(tmpdir(), `svcbase-bench-pb-${key}-`))
  const load = loadavg()
  log(`round ${round}, ${key}: load average ${load.map((l) => l.toFixed(2)).join(' ')}`)
  let server: BenchServer | null = null
  let afterCreate: (() => Promise<number | undefined>) | undefined
  try {
    if (key === 'pocketbase') server = await startPocketbase(pbBin, tmp)
    else if (key === 'svcbase')
      server = await startSvcbaseFresh(join(tmp, 'data'), undefined, args.workers)
    else {
      const db = `bench_pb_r${round}`
      const admin = postgres!.url('postgres')
      await pgQuery(admin, `DROP DATABASE IF EXISTS ${db}`)
      await pgQuery(admin, `CREATE DATABASE ${db}`)
      const url = postgres!.url(db)
      server = {
        ...(await startSvcbaseFresh(join(tmp, 'data'), url, args.workers)),
        name: 'svcbase-pg',
      }
      afterCreate = async () =>
        Number(
          (
            await pgQuery<{ n: string }>(url, 'SELECT pg_database_size(current_database()) AS n')
          )[0]!.n,
        )
    }
    log(`${server.name} at ${server.url} (pid ${server.pid}), data in ${server.dataDir}`)
    return await runServer(server, key, round, load, {
      groups: args.groups,
      sizes: args.sizes,
      only: args.only,
      cooldownMs: args.cooldownMs,
      log,
      ...(afterCreate ? { afterCreate } : {}),
    })
  } finally {
    await server?.stop()
    rmSync(tmp, { recursive: true, force: true })
  }
}

async function write(file: string, text: string): Promise<void> {
  const options = (await prettier.resolveConfig(file)) ?? {}
  writeFileSync(file, await prettier.format(text, { ...options, filepath: file }))
}

async function main(): Promise<number> {
  let args: Args
  try {
    args = parseArgs(process.argv.slice(2))
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    console.error(`${err.message}\n${USAGE}`)
    return 2
  }
  const pb = findPocketbase()
  log(`PocketBase ${pb.version}: ${pb.bin} (from ${pb.source})`)
  if (args.build) {
    log('building svcbase (npm run build)')
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' })
  }
  let postgres: Postgres | null = null
  // NB: a folder of its own under the system tmp, open to the postgres user (as bench/postgres.ts).
  const pgDir = args.db ? mkdtempSync(join(tmpdir(), 'svcbase-bench-pb-pg-')) : ''
  const runs: ServerRun[] = []
  const start = loadavg()
  try {
    if (args.db) {
      chmodSync(pgDir, 0o755)
      postgres = await startPostgres(pgDir)
    }
    for (let round = 1; round <= args.rounds; round++) {
      for (const key of roundOrder(round, args.db))
        runs.push(await runOne(key, round, args, pb.bin, postgres))
    }
  } finally {
    postgres?.stop()
    if (pgDir) rmSync(pgDir, { recursive: true, force: true })
  }
  const result: BenchResult = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    pocketbase: pb,
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadavg: start,
    options: { ...args, only: args.only?.source ?? null },
    servers: args.db ? ['pocketbase', 'svcbase', 'svcbase-pg'] : ['pocketbase', 'svcbase'],
    runs,
    totalS: (performance.now() - started) / 1000,
  }
  const command = `npm run bench:pocketbase -- ${process.argv.slice(2).join(' ')}`.trim()
  const md = renderMarkdown(result, command)
  const json = `${JSON.stringify(result, null, 1)}\n`
  const results = join(ROOT, 'bench', 'results')
  mkdirSync(join(results, 'runs'), { recursive: true })
  const stamp = result.date.replace(/[:.]/g, '-')
  const files = [
    join(results, 'runs', `pocketbase-${stamp}.md`),
    join(results, 'runs', `pocketbase-${stamp}.json`),
  ]
  if (args.save) files.push(join(results, 'pocketbase.md'), join(results, 'pocketbase.json'))
  for (const f of files) await write(f, f.endsWith('.md') ? md : json)
  console.log(`\n${md}`)
  log(`written: ${files.join(', ')}`)
  return 0
}

main().then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof RefusedError) {
      console.error(`bench:pocketbase refused: ${err.message}`)
      process.exit(1)
    }
    console.error(err)
    process.exit(1)
  },
)
