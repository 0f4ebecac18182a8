/**
 * Report rows, targets, the command-line arguments of `npm run bench`, and the result files:
 * every run writes `bench/results/runs/<date>.json` and `.md` (git-ignored); only
 * `npm run bench -- --save` also updates the committed `bench/results/latest.json` and
 * `latest.md`. All are run through prettier, so `prettier --check .` stays clean.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as prettier from 'prettier'
import type { Measurement } from './load.js'

/** One line of the report. */
export interface ScenarioRow {
  name: string
  /** Successful requests per second (events/s for fan-out); null for memory rows. */
  reqPerSec: number | null
  p50Ms: number | null
  p99Ms: number | null
  baselineReqPerSec?: number
  /** svcbase ÷ baseline req/s. */
  ratio?: number
  connections?: number
  mode?: 'keep-alive' | 'new-connection'
  target?: string
  met?: boolean
  /** Failed requests (non-2xx, socket errors, timeouts) of the measured run. */
  errors?: number
  /** The failed requests by HTTP status (`socket` for errors without a response). */
  failures?: Record<string, number>
  baselineErrors?: number
  rssMb?: number
  note?: string
  [extra: string]: unknown
}

/** What a row must reach: a ratio to the baseline, a req/s floor, an RSS ceiling. */
export interface Target {
  ratio?: number
  /** PocketBase's published CAX11 figure. */
  reqPerSec?: number
  rssMbMax?: number
}

/** The whole report, as written to `latest.json`. */
export interface Report {
  node: string
  cores: number
  date: string
  scenarios: ScenarioRow[]
}

export const BENCH_USAGE = `Usage: npm run bench [-- --save]

Runs every scenario (about 5 minutes on 2 cores) and writes the results to
bench/results/runs/<date>.json and .md, which git ignores.

  --save     also update the committed table, bench/results/latest.json and latest.md
             (refused with BENCH_ONLY: the committed table holds every scenario)
  --help     this text

Environment knobs are described at the top of bench/run.ts.`

/** A mistake in `npm run bench` arguments: printed with the usage, exit status 2. */
export class BenchUsageError extends Error {}

/** What `npm run bench` was asked for. */
export interface BenchArgs {
  /** Also update the committed `bench/results/latest.{json,md}`. */
  save: boolean
  help: boolean
}

/** Reads `npm run bench` arguments; throws BenchUsageError on anything unknown. */
export function parseBenchArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): BenchArgs {
  const args: BenchArgs = { save: false, help: false }
  for (const arg of argv) {
    if (arg === '--save') args.save = true
    else if (arg === '--help' || arg === '-h') args.help = true
    else throw new BenchUsageError(`unknown argument "${arg}"`)
  }
  if (args.save && env.BENCH_ONLY)
    throw new BenchUsageError(
      `--save with BENCH_ONLY=${env.BENCH_ONLY}: a partial run cannot replace the committed table`,
    )
  return args
}

/** Rounds for the report: 2 decimals under 100, 1 decimal from there. */
export function round(n: number): number {
  if (!Number.isFinite(n)) return n
  const f = Math.abs(n) < 100 ? 100 : 10
  return Math.round(n * f) / f
}

function meets(row: ScenarioRow, t: Target): boolean {
  if (t.ratio !== undefined && !(row.ratio !== undefined && row.ratio >= t.ratio)) return false
  if (t.reqPerSec !== undefined && !((row.reqPerSec ?? 0) >= t.reqPerSec)) return false
  if (t.rssMbMax !== undefined && !((row.rssMb ?? Infinity) < t.rssMbMax)) return false
  return true
}

/** A target in words, e.g. `ratio ≥ 0.6; ≥ 2500 req/s (PocketBase CAX11)`. */
export function describeTarget(t: Target): string {
  const parts: string[] = []
  if (t.ratio !== undefined) parts.push(`ratio ≥ ${t.ratio}`)
  if (t.reqPerSec !== undefined) parts.push(`≥ ${t.reqPerSec} req/s (PocketBase CAX11)`)
  if (t.rssMbMax !== undefined) parts.push(`RSS < ${t.rssMbMax} MB`)
  return parts.join('; ')
}

/** Sets `target` and `met` of a row. */
export function withTarget(r: ScenarioRow, t: Target): ScenarioRow {
  return { ...r, target: describeTarget(t), met: meets(r, t) }
}

/** Builds a row from svcbase's measurement and, optionally, the baseline's and a target. */
export function row(
  name: string,
  m: Measurement,
  extra: Partial<ScenarioRow> & { baseline?: Measurement; goal?: Target } = {},
): ScenarioRow {
  const { baseline, goal, ...rest } = extra
  const r: ScenarioRow = {
    name,
    reqPerSec: round(m.reqPerSec),
    p50Ms: round(m.p50Ms),
    p99Ms: round(m.p99Ms),
    connections: m.connections,
    mode: 'keep-alive',
    ...(m.errors > 0 ? { errors: m.errors, failures: m.failures } : {}),
    ...rest,
  }
  if (baseline) {
    r.baselineReqPerSec = round(baseline.reqPerSec)
    r.ratio = Math.round((m.reqPerSec / baseline.reqPerSec) * 100) / 100
    if (baseline.errors > 0) r.baselineErrors = baseline.errors
  }
  return goal ? withTarget(r, goal) : r
}

const failureText = (f: Record<string, number> | undefined) =>
  Object.entries(f ?? {})
    .map(([k, n]) => `${n} × ${k}`)
    .join(', ')

const cell = (v: number | null | undefined) =>
  v === null || v === undefined || Number.isNaN(v) ? '' : String(v)

function markdown(report: Report, notes: string[], saved: boolean): string {
  const by = saved ? 'npm run bench -- --save' : 'npm run bench'
  const lines = [
    '# svcbase benchmark',
    '',
    `Node ${report.node}, ${report.cores} cores, ${report.date}. Written by \`${by}\`.`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | baseline req/s | ratio | target | met |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ]
  for (const s of report.scenarios) {
    let name = s.name
    if (s.rssMb !== undefined) name += `: ${s.rssMb} MB`
    if (s.errors) name += ` (${s.errors} failed: ${failureText(s.failures)})`
    if (s.note) name += ` (${s.note})`
    const met = s.met === undefined ? '' : s.met ? 'yes' : '**no**'
    const row = [
      name,
      cell(s.reqPerSec),
      cell(s.p50Ms),
      cell(s.p99Ms),
      cell(s.baselineReqPerSec),
      cell(s.ratio),
      s.target ?? '',
      met,
    ]
    lines.push(`| ${row.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`)
  }
  lines.push('', ...notes.map((n) => `- ${n}`), '')
  return lines.join('\n')
}

async function pretty(file: string, text: string): Promise<string> {
  const options = (await prettier.resolveConfig(file)) ?? {}
  return prettier.format(text, { ...options, filepath: file })
}

/**
 * Writes the report into `resultsDir` (`bench/results`): always `runs/<date>.json` and `.md`
 * (git-ignored), and with `save` also the committed `latest.json` and `latest.md`. Returns the
 * paths written.
 */
export async function writeReport(
  resultsDir: string,
  report: Report,
  notes: string[],
  save: boolean,
): Promise<string[]> {
  const runs = join(resultsDir, 'runs')
  mkdirSync(runs, { recursive: true })
  // 2026-11-22T00:07:22.073Z → 2026-11-22T00-07-22Z: no colons, sorts by date.
  const stamp = report.date.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')
  const targets = [join(runs, stamp)]
  if (save) targets.push(join(resultsDir, 'latest'))
  const written: string[] = []
  for (const base of targets) {
    const json = `${base}.json`
    const md = `${base}.md`
    writeFileSync(json, await pretty(json, JSON.stringify(report, null, 2)))
    writeFileSync(md, await pretty(md, markdown(report, notes, save)))
    written.push(json, md)
  }
  return written
}
