import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BenchUsageError, parseBenchArgs, writeReport, type Report } from '../bench/report.js'

const report: Report = {
  node: 'v20.0.0',
  cores: 2,
  date: '2026-11-22T00:07:22.073Z',
  scenarios: [{ name: 'view one record', reqPerSec: 1000, p50Ms: 1, p99Ms: 2 }],
}

describe('npm run bench: where results go', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-bench-results-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('writes a plain run under runs/ only, leaving the committed table alone', async () => {
    const files = await writeReport(dir, report, ['a note'], false)
    expect(files).toEqual([
      join(dir, 'runs', '2026-11-22T00-07-22Z.json'),
      join(dir, 'runs', '2026-11-22T00-07-22Z.md'),
    ])
    expect(existsSync(join(dir, 'latest.json'))).toBe(false)
    expect(existsSync(join(dir, 'latest.md'))).toBe(false)
    expect(JSON.parse(readFileSync(files[0]!, 'utf8'))).toEqual(report)
    expect(readFileSync(files[1]!, 'utf8')).toContain('Written by `npm run bench`.')
  })

  it('updates latest.json and latest.md only with --save', async () => {
    const files = await writeReport(dir, { ...report, date: '2026-11-23T10:00:00.000Z' }, [], true)
    expect(files).toEqual([
      join(dir, 'runs', '2026-11-23T10-00-00Z.json'),
      join(dir, 'runs', '2026-11-23T10-00-00Z.md'),
      join(dir, 'latest.json'),
      join(dir, 'latest.md'),
    ])
    expect(readFileSync(join(dir, 'latest.md'), 'utf8')).toContain(
      'Written by `npm run bench -- --save`.',
    )
    expect(readdirSync(join(dir, 'runs')).sort()).toEqual([
      '2026-11-22T00-07-22Z.json',
      '2026-11-22T00-07-22Z.md',
      '2026-11-23T10-00-00Z.json',
      '2026-11-23T10-00-00Z.md',
    ])
  })

  it('keeps runs out of git and the committed table in it', () => {
    const ignored = (path: string) => {
      try {
        execFileSync('git', ['check-ignore', '-q', path])
        return true
      } catch {
        return false
      }
    }
    expect(ignored('bench/results/runs/2026-11-22T00-07-22Z.json')).toBe(true)
    expect(ignored('bench/results/runs/2026-11-22T00-07-22Z.md')).toBe(true)
    expect(ignored('bench/results/latest.json')).toBe(false)
    expect(ignored('bench/results/latest.md')).toBe(false)
  })
})

describe('npm run bench: arguments', () => {
  it('reads --save and --help', () => {
    expect(parseBenchArgs([], {})).toEqual({ save: false, help: false })
    expect(parseBenchArgs(['--save'], {})).toEqual({ save: true, help: false })
    expect(parseBenchArgs(['--help'], {})).toEqual({ save: false, help: true })
  })

  it('refuses unknown arguments and a partial run saved over the committed table', () => {
    expect(() => parseBenchArgs(['--sav'], {})).toThrow(BenchUsageError)
    expect(() => parseBenchArgs(['--sav'], {})).toThrow('unknown argument "--sav"')
    expect(() => parseBenchArgs(['--save'], { BENCH_ONLY: 'view' })).toThrow(
      '--save with BENCH_ONLY=view: a partial run cannot replace the committed table',
    )
    expect(parseBenchArgs([], { BENCH_ONLY: 'view' }).save).toBe(false)
  })

  it('stops at a wrong argument before building or seeding anything', async () => {
    const res = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) =>
        execFile(
          process.execPath,
          ['--import', 'tsx', 'bench/run.ts', '--bogus'],
          (err, stdout, stderr) =>
            resolve({ code: err ? (err.code as number) : 0, stdout, stderr }),
        ),
    )
    expect(res.code).toBe(2)
    expect(res.stdout).toBe('')
    expect(res.stderr).toMatch(/^error: unknown argument "--bogus"\n\nUsage: npm run bench/)
  })
})
