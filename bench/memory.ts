/**
 * Idle memory (issue 19): the resident set of a fresh svcbase process after start and a few
 * requests, beside a fresh bare Fastify + better-sqlite3 process (`baseline-server.ts`) that
 * did the same requests over a copy of the same seeded data, measured in the same run.
 *
 * Both run compiled: svcbase from `dist/`, the baseline bundled by esbuild into plain
 * JavaScript (its packages left as imports), so neither carries tsx's loader (~20 MB), and
 * neither is the process the other scenarios load. Each round starts both, sends each the same
 * requests (20 lists of posts10k newest first, 20 views, 10 creates in creates_open), waits
 * `BENCH_MEMORY_IDLE` seconds [10] and reads VmRSS (RssAnon and RssFile too) from
 * `/proc/<pid>/status`; three rounds, the median of each process is reported.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { buildSync } from 'esbuild'
import { round, type ScenarioRow } from './report.js'
import type { Context } from './scenarios.js'
import { ROOT, startSvcbase, stopChild, type ServerProcess } from './servers.js'

/** The RSS ratio svcbase ÷ baseline the issue asks for. */
const TARGET_RATIO = 1.25
const ROUNDS = 3

/** The resident set of a process in MiB: total, anonymous and file-backed. */
interface Rss {
  rss: number
  anon: number
  file: number
}

function readRss(pid: number): Rss {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+)\\s+kB`, 'm').exec(status)
    if (!m) throw new Error(`no ${key} for pid ${pid}`)
    return Number(m[1]) / 1024
  }
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') }
}

/** Bundles `baseline-server.ts` into `dir` as plain JavaScript that resolves the repo's packages. */
function compileBaseline(dir: string): string {
  mkdirSync(dir, { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  const out = join(dir, 'baseline-server.mjs')
  buildSync({
    entryPoints: [join(ROOT, 'bench', 'baseline-server.ts')],
    outfile: out,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  })
  return out
}

/** Starts the compiled baseline; resolves once it listens. */
function startCompiledBaseline(script: string, dbFile: string): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [script, `--db=${dbFile}`, '--tables=posts10k,creates_open', '--http=127.0.0.1:0'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let err = ''
  child.stderr.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-2000)))
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the compiled baseline did not start in 30 s\n${err}`))
    }, 30_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the compiled baseline exited with ${code}\n${err}`))
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8')
      const m = /baseline listening (http:\/\/\S+)/.exec(out)
      if (!m) return
      clearTimeout(timer)
      const pid = child.pid!
      resolve({
        name: 'baseline (compiled)',
        url: m[1]!,
        pid,
        rssMb: () => readRss(pid).rss,
        stop: () => stopChild(child, exited),
      })
    })
  })
}

async function call(url: string, method: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${url} → ${res.status}: ${text.slice(0, 300)}`)
  return text
}

/** The same few requests, in svcbase's API and in the baseline's. */
async function fewRequests(svc: string, base: string, ctx: Context): Promise<void> {
  const ids = ctx.data.smallIds
  const users = ctx.data.users.map((u) => u.id)
  for (let i = 0; i < 20; i++) {
    await call(`${svc}/api/collections/posts10k/records?perPage=20&sort=-created`, 'GET')
    await call(`${base}/posts/posts10k?limit=20`, 'GET')
  }
  for (let i = 0; i < 20; i++) {
    const id = ids[(i * 97) % ids.length]!
    await call(`${svc}/api/collections/posts10k/records/${id}`, 'GET')
    await call(`${base}/posts/posts10k/${id}`, 'GET')
  }
  for (let i = 0; i < 10; i++) {
    const body = {
      title: `memory bench post ${i}`,
      description: 'A memory bench post. '.repeat(24),
      status: 'live',
      author: users[i % users.length],
      editors: [users[(i * 7) % users.length]],
    }
    await call(`${svc}/api/collections/creates_open/records`, 'POST', body)
    await call(`${base}/posts/creates_open`, 'POST', body)
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const pick = (rs: Rss[]): Rss => {
  const m = median(rs.map((r) => r.rss))
  return rs.find((r) => r.rss === m)!
}

/**
 * The idle-memory row: svcbase and the bare baseline as fresh processes over `dataDir` and
 * `baselineDb` (the seeded copies), the same requests, `ROUNDS` rounds.
 */
export async function memoryRows(
  ctx: Context,
  dataDir: string,
  baselineDb: string,
  tmp: string,
): Promise<ScenarioRow[]> {
  const idleS = Number(process.env.BENCH_MEMORY_IDLE ?? 10)
  const script = compileBaseline(join(tmp, 'memory-baseline'))
  const svcRuns: Rss[] = []
  const baseRuns: Rss[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const svc = await startSvcbase(dataDir)
    const base = await startCompiledBaseline(script, baselineDb).catch(async (err: unknown) => {
      await svc.stop()
      throw err
    })
    try {
      await fewRequests(svc.url, base.url, ctx)
      await new Promise((r) => setTimeout(r, idleS * 1000))
      svcRuns.push(readRss(svc.pid))
      baseRuns.push(readRss(base.pid))
    } finally {
      await Promise.all([svc.stop(), base.stop()])
    }
    ctx.log(
      `  round ${round + 1}: svcbase ${round2(svcRuns.at(-1)!)}, baseline ${round2(baseRuns.at(-1)!)}`,
    )
  }
  const s = pick(svcRuns)
  const b = pick(baseRuns)
  const ratio = Math.round((s.rss / b.rss) * 100) / 100
  return [
    {
      name: `idle RSS after start and a few requests: svcbase ${round(s.rss)} MB, bare Fastify + better-sqlite3 ${round(b.rss)} MB, ratio ${ratio} (median of ${ROUNDS} fresh pairs, ${idleS} s idle; anon/file svcbase ${round(s.anon)}/${round(s.file)}, baseline ${round(b.anon)}/${round(b.file)})`,
      reqPerSec: null,
      p50Ms: null,
      p99Ms: null,
      rssMb: round(s.rss),
      baselineRssMb: round(b.rss),
      rssRatio: ratio,
      svcbaseRounds: svcRuns.map((r) => round(r.rss)),
      baselineRounds: baseRuns.map((r) => round(r.rss)),
      target: `RSS ratio ≤ ${TARGET_RATIO}`,
      met: ratio <= TARGET_RATIO,
    },
  ]
}

function round2(r: Rss): string {
  return `${round(r.rss)} MB (anon ${round(r.anon)}, file ${round(r.file)})`
}
