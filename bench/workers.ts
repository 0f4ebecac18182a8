/**
 * The `--workers 2` vs `--workers 1` rows (issue 17 part 5): the same data folder served by the
 * one-process svcbase of the run and by a `serve --workers 2` started beside it, each measured
 * with `wrk` (keep-alive; Debian's package, installed with apt-get when missing) pinned to core 0
 * with `taskset -c 0`, for view one record and list 20 of 10k. The two servers are measured in
 * alternating slices (1, 2, 2, 1) after a warm-up of each; the ratio is req/s of 2 ÷ req/s of 1.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ScenarioRow } from './report.js'
import type { Context } from './scenarios.js'
import { startSvcbase, type ServerProcess } from './servers.js'

/** What the rows must reach: `--workers 2` this many times `--workers 1` (2 cores). */
const TARGET_RATIO = 1.4

/** One wrk run's figures. */
interface WrkResult {
  reqPerSec: number
  p50Ms: number
  p99Ms: number
  errors: number
}

/** Installs Debian's wrk when it is not on PATH (needs root, as the other bench components). */
export function ensureWrk(): void {
  if (spawnSync('sh', ['-c', 'command -v wrk && command -v taskset']).status === 0) return
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'wrk'], { env })
  if (install().status !== 0) {
    execFileSync('apt-get', ['update'], { env, stdio: 'ignore' })
    if (install().status !== 0)
      throw new Error('wrk is missing and apt-get could not install it: install Debian’s wrk')
  }
}

/** A wrk duration like `1.23ms`, `850.00us` or `1.02s` in milliseconds. */
function toMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim())
  if (!m) throw new Error(`unexpected wrk latency "${text}"`)
  const n = Number(m[1])
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000
}

/** Parses wrk's report (`--latency`). */
export function parseWrk(out: string): WrkResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)
  const p50 = /^\s+50%\s+(\S+)/m.exec(out)
  const p99 = /^\s+99%\s+(\S+)/m.exec(out)
  if (!rps || !p50 || !p99) throw new Error(`unexpected wrk output:\n${out}`)
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0
  return {
    reqPerSec: Number(rps[1]),
    p50Ms: toMs(p50[1]!),
    p99Ms: toMs(p99[1]!),
    errors: Number(non2xx?.[1] ?? 0) + socketErrors,
  }
}

/** Runs wrk on core 0 against `url` with `script` for `seconds`. */
function wrk(url: string, script: string, connections: number, seconds: number): WrkResult {
  const out = execFileSync(
    'taskset',
    ['-c', '0', 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url],
    { encoding: 'utf8' },
  )
  return parseWrk(out)
}

/** The mean of slices (req/s averaged, latencies the worse, errors summed). */
function merge(slices: WrkResult[]): WrkResult {
  return {
    reqPerSec: slices.reduce((a, s) => a + s.reqPerSec, 0) / slices.length,
    p50Ms: Math.max(...slices.map((s) => s.p50Ms)),
    p99Ms: Math.max(...slices.map((s) => s.p99Ms)),
    errors: slices.reduce((a, s) => a + s.errors, 0),
  }
}

const round = (n: number) => Math.round(n * 100) / 100

/** The view and list rows of `--workers 2` vs `--workers 1`. */
export async function workersRows(ctx: Context, dataDir: string): Promise<ScenarioRow[]> {
  ensureWrk()
  const tmp = mkdtempSync(join(tmpdir(), 'svcbase-bench-wrk-'))
  let two: ServerProcess | null = null
  try {
    two = await startSvcbase(dataDir, { workers: 2 })
    ctx.log(`  --workers 2 at ${two.url} (primary pid ${two.pid})`)
    const ids = ctx.data.smallIds.map((id) => `"${id}"`).join(',')
    const view = join(tmp, 'view.lua')
    writeFileSync(
      view,
      `local ids = {${ids}}\nlocal i = 0\nrequest = function()\n  i = i % #ids + 1\n  return wrk.format("GET", "/api/collections/posts10k/records/" .. ids[i])\nend\n`,
    )
    const list = join(tmp, 'list.lua')
    writeFileSync(
      list,
      'request = function()\n  return wrk.format("GET", "/api/collections/posts10k/records?perPage=20&sort=-created&skipTotal=1")\nend\n',
    )
    const rows: ScenarioRow[] = []
    for (const [name, script] of [
      ['view one record (posts10k)', view],
      ['list 20 of 10k, skipTotal', list],
    ] as const) {
      const c = ctx.connections
      const half = Math.max(1, Math.round(ctx.durationS / 2))
      wrk(ctx.svc.url, script, c, ctx.warmupS)
      wrk(two.url, script, c, ctx.warmupS)
      const a1 = wrk(ctx.svc.url, script, c, half)
      const b1 = wrk(two.url, script, c, half)
      const b2 = wrk(two.url, script, c, half)
      const a2 = wrk(ctx.svc.url, script, c, half)
      const one = merge([a1, a2])
      const both = merge([b1, b2])
      const ratio = round(both.reqPerSec / one.reqPerSec)
      rows.push({
        name: `${name}, --workers 2 vs --workers 1 (wrk on core 0)`,
        reqPerSec: round(both.reqPerSec),
        p50Ms: round(both.p50Ms),
        p99Ms: round(both.p99Ms),
        baselineReqPerSec: round(one.reqPerSec),
        ratio,
        connections: c,
        mode: 'keep-alive',
        target: `ratio ≥ ${TARGET_RATIO} (baseline: --workers 1)`,
        met: ratio >= TARGET_RATIO,
        ...(both.errors + one.errors > 0 ? { errors: both.errors + one.errors } : {}),
      })
    }
    return rows
  } finally {
    await two?.stop()
    rmSync(tmp, { recursive: true, force: true })
  }
}
