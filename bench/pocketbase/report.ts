/**
 * The report of `npm run bench:pocketbase`: one markdown table per group (times as medians over
 * rounds, the ratio svcbase ÷ PocketBase, errors, p50/p95), the first error of each failing
 * scenario, RSS and data-folder lines, under a header naming the machine and the versions. The
 * JSON beside it holds every raw figure (`BenchResult`).
 */
import type { Group } from './scenarios.js'
import type { ScenarioResult, ServerKey, ServerRun } from './runner.js'
import { formatMs, median, ratio } from './stats.js'

export interface BenchResult {
  date: string
  commit: string
  pocketbase: { version: string; bin: string; source: string }
  node: string
  cpus: number
  cpuModel: string
  /** `os.loadavg()` when the run started. */
  loadavg: number[]
  /** The command line's options, as parsed. */
  options: Record<string, unknown>
  servers: ServerKey[]
  runs: ServerRun[]
  totalS: number
}

const LABEL: Record<ServerKey, string> = {
  pocketbase: 'PocketBase',
  svcbase: 'svcbase',
  'svcbase-pg': 'svcbase on PostgreSQL',
}

const TITLES: Record<Group, string> = {
  create: 'create (`test_create.go`, #1–14)',
  auth: 'auth (`test_auth.go`, #15–18)',
  search: 'search (`test_search.go`, #19–132)',
}

/** Per server and row, the figures of every round. */
interface Cell {
  name: string
  group: Group
  results: ScenarioResult[]
}

function collect(runs: readonly ServerRun[]): Map<number, Map<ServerKey, Cell>> {
  const rows = new Map<number, Map<ServerKey, Cell>>()
  for (const run of runs) {
    for (const s of run.scenarios) {
      const byServer = rows.get(s.row) ?? new Map<ServerKey, Cell>()
      rows.set(s.row, byServer)
      const cell = byServer.get(run.server) ?? { name: s.name, group: s.group, results: [] }
      byServer.set(run.server, cell)
      cell.results.push(s)
    }
  }
  return rows
}

/** The medians and totals of one server's rounds of a row. */
export function aggregate(cell: Cell | undefined) {
  const rs = cell?.results ?? []
  const ok = rs.filter((r) => !r.setupError)
  return {
    completedMs: median(ok.map((r) => r.completedMs)),
    p50Ms: median(ok.map((r) => r.p50Ms)),
    p95Ms: median(ok.map((r) => r.p95Ms)),
    errors: rs.reduce((n, r) => n + r.errors + (r.background?.errors ?? 0), 0),
    setupFailed: rs.length - ok.length,
    rounds: rs.length,
  }
}

const esc = (s: string) => s.replace(/\|/g, '\\|')
const num = (x: number) => (Number.isNaN(x) ? '' : x.toFixed(2))
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

function errorsCell(a: ReturnType<typeof aggregate>): string {
  if (a.rounds === 0) return ''
  return a.setupFailed ? `${a.errors} (setup failed ×${a.setupFailed})` : String(a.errors)
}

function groupTable(group: Group, rows: Map<number, Map<ServerKey, Cell>>, pg: boolean): string[] {
  const head = ['#', 'scenario', 'PocketBase', 'svcbase', 'svcbase ÷ PB', 'errors PB / svc']
  head.push('p50 PB / svc', 'p95 PB / svc')
  if (pg) head.push('svcbase PG', 'PG ÷ PB', 'errors PG', 'p50 / p95 PG')
  const lines = [
    `## ${TITLES[group]}`,
    '',
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
  ]
  const numbers = [...rows.keys()].sort((a, b) => a - b)
  let any = false
  for (const row of numbers) {
    const byServer = rows.get(row)!
    const first = [...byServer.values()][0]!
    if (first.group !== group) continue
    any = true
    const pb = aggregate(byServer.get('pocketbase'))
    const svc = aggregate(byServer.get('svcbase'))
    const cells = [
      String(row),
      esc(first.name),
      formatMs(pb.completedMs),
      formatMs(svc.completedMs),
      num(ratio(svc.completedMs, pb.completedMs)),
      `${errorsCell(pb)} / ${errorsCell(svc)}`,
      `${formatMs(pb.p50Ms)} / ${formatMs(svc.p50Ms)}`,
      `${formatMs(pb.p95Ms)} / ${formatMs(svc.p95Ms)}`,
    ]
    if (pg) {
      const p = aggregate(byServer.get('svcbase-pg'))
      cells.push(formatMs(p.completedMs), num(ratio(p.completedMs, pb.completedMs)), errorsCell(p))
      cells.push(`${formatMs(p.p50Ms)} / ${formatMs(p.p95Ms)}`)
    }
    lines.push(`| ${cells.join(' | ')} |`)
  }
  return any ? [...lines, ''] : []
}

function firstErrors(runs: readonly ServerRun[]): string[] {
  const lines: string[] = []
  for (const run of runs) {
    for (const s of run.scenarios) {
      const where = `${LABEL[run.server]}, round ${run.round}, #${s.row}`
      if (s.setupError)
        lines.push(`- ${where}: setup failed: \`${esc(s.setupError.slice(0, 300))}\``)
      const show = (what: string, e: { status: number; body: string }, n: number) =>
        lines.push(
          `- ${where}${what}: ${n} errors, first: status ${e.status} \`${oneLine(e.body)}\``,
        )
      if (s.firstError) show('', s.firstError, s.errors)
      if (s.background?.firstError)
        show(' (background PATCHes)', s.background.firstError, s.background.errors)
    }
  }
  return lines.length ? ['## First errors', '', ...lines, ''] : []
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').replace(/`/g, "'").slice(0, 200)

function memory(result: BenchResult): string[] {
  const lines = ['## Memory and data', '']
  for (const key of result.servers) {
    const runs = result.runs.filter((r) => r.server === key)
    if (runs.length === 0) continue
    const m = (f: (r: ServerRun) => number | undefined) => {
      const v = median(runs.map((r) => f(r) ?? Number.NaN))
      return Number.isNaN(v) ? '–' : `${v.toFixed(0)} MiB`
    }
    const groups = (['create', 'auth', 'search'] as const)
      .filter((g) => runs.some((r) => r.groupPeakRssMb[g] !== undefined))
      .map((g) => `${g} ${m((r) => r.groupPeakRssMb[g])}`)
    lines.push(
      `- **${LABEL[key]}** RSS: idle after start and schema ${m((r) => r.idleRssMb)}; ` +
        `peak per group: ${groups.join(', ')}; peak overall ${m((r) => r.peakRssMb)}`,
    )
    const data = runs.map((r) => r.data).filter((d) => d !== undefined)
    if (data.length) {
      const biggest =
        data[0]!.biggest.map((f) => `${f.file} ${mib(f.bytes)}`).join(', ') || 'no files'
      let line = `- **${LABEL[key]}** data folder after create: ${mib(median(data.map((d) => d.bytes)))} (biggest: ${biggest})`
      const pgBytes = runs.map((r) => r.pgDatabaseBytes).filter((b) => b !== undefined)
      if (pgBytes.length) line += `; PostgreSQL database ${mib(median(pgBytes))}`
      lines.push(line)
    }
    const walls = runs.map((r) => `${r.wallS.toFixed(0)} s`).join(', ')
    const loads = runs.map((r) => r.loadavg.map((l) => l.toFixed(2)).join(' ')).join('; ')
    lines.push(
      `- **${LABEL[key]}** run time per round: ${walls}; load average at its start: ${loads}`,
    )
  }
  return [...lines, '']
}

/** The markdown report of a run. */
export function renderMarkdown(result: BenchResult, command: string): string {
  const rows = collect(result.runs)
  const pg = result.servers.includes('svcbase-pg')
  const rounds = Math.max(0, ...result.runs.map((r) => r.round))
  const lines = [
    '# svcbase against PocketBase, on PocketBase’s own benchmark',
    '',
    `${result.date}, commit ${result.commit}. PocketBase ${result.pocketbase.version}, Node ${result.node}, ` +
      `${result.cpus} × ${result.cpuModel}. Load average at the start: ${result.loadavg.map((l) => l.toFixed(2)).join(' ')}. ` +
      `${rounds} round(s), ${(result.totalS / 60).toFixed(1)} min in all. Written by \`${command}\`.`,
    '',
    'Times are the scenario’s completed wall time (median over rounds); the ratio is svcbase ÷ PocketBase ' +
      '(below 1: svcbase faster); errors are summed over rounds (status >= 400 or transport error; ' +
      'the S4 rows count their background PATCHes too); p50/p95 are per-request times (medians over rounds). ' +
      'Scenarios and method: docs/benchmarks.md, "Against PocketBase".',
    '',
  ]
  for (const g of ['create', 'auth', 'search'] as const) lines.push(...groupTable(g, rows, pg))
  lines.push(...memory(result), ...firstErrors(result.runs))
  return lines.join('\n')
}
