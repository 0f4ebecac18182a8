/**
 * Report rows, targets, and the two result files: `bench/results/latest.json` and the Markdown
 * table beside it. Both are run through prettier, so `prettier --check .` stays clean.
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

function markdown(report: Report, notes: string[]): string {
  const lines = [
    '# svcbase benchmark',
    '',
    `Node ${report.node}, ${report.cores} cores, ${report.date}. Written by \`npm run bench\`.`,
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

/** Writes `latest.json` and `latest.md` into `dir`; returns their paths. */
export async function writeReport(dir: string, report: Report, notes: string[]): Promise<string[]> {
  mkdirSync(dir, { recursive: true })
  const json = join(dir, 'latest.json')
  const md = join(dir, 'latest.md')
  writeFileSync(json, await pretty(json, JSON.stringify(report, null, 2)))
  writeFileSync(md, await pretty(md, markdown(report, notes)))
  return [json, md]
}
