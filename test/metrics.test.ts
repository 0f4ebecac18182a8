import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { register as globalRegistry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runUses } from './global-setup.js'
import { startServer, type TestServer } from './helpers/server.js'

/**
 * Runs `promtool check metrics` on an exposition; test/global-setup.ts installs promtool
 * (scripts/promtool.sh) before any run that includes this file.
 */
function promtoolCheck(exposition: string): { status: number | null; output: string } {
  const res = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' })
  if (res.error) {
    throw new Error(
      `promtool is required to validate /metrics but could not run (${res.error.message}); ` +
        'test/global-setup.ts should have installed it (scripts/promtool.sh install).',
    )
  }
  return { status: res.status, output: `${res.stdout}${res.stderr}` }
}

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('metrics', () => {
  let t: TestServer

  const scrape = async (headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url}/metrics`, { headers })
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
  }

  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('counts requests by method and status, errors and durations', async () => {
    const before = await scrape()
    expect(before.status).toBe(200)
    const get200 = sample(before.text, 'svc_http_requests_total{method="GET",status="200"}') ?? 0
    const count0 = sample(before.text, 'svc_http_request_duration_seconds_count') ?? 0
    const errors0 = sample(before.text, 'svc_http_errors_total') ?? 0

    for (let i = 0; i < 3; i++) expect((await t.api('GET', '/api/health')).status).toBe(200)
    expect((await t.api('GET', '/api/nope')).status).toBe(404)
    expect((await t.api('GET', '/api/logs')).status).toBe(401)
    expect((await t.api('DELETE', '/api/health')).status).toBe(404)

    const after = await scrape()
    expect(after.status).toBe(200)
    expect(after.type).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = after.text
    expect(text).toContain('# HELP svc_http_requests_total ')
    expect(text).toContain('# TYPE svc_http_requests_total counter')
    expect(text).toContain('# HELP svc_http_request_duration_seconds ')
    expect(text).toContain('# TYPE svc_http_request_duration_seconds histogram')
    expect(text).toContain('# HELP svc_http_errors_total ')
    expect(text).toContain('# TYPE svc_http_errors_total counter')
    expect(sample(text, 'svc_http_requests_total{method="GET",status="200"}')).toBe(get200 + 3)
    expect(sample(text, 'svc_http_requests_total{method="GET",status="404"}')).toBe(1)
    expect(sample(text, 'svc_http_requests_total{method="GET",status="401"}')).toBe(1)
    expect(sample(text, 'svc_http_requests_total{method="DELETE",status="404"}')).toBe(1)
    expect(sample(text, 'svc_http_errors_total')).toBe(errors0 + 3)
    expect(sample(text, 'svc_http_request_duration_seconds_count')).toBe(count0 + 6)
    expect(sample(text, 'svc_http_request_duration_seconds_bucket{le="+Inf"}')).toBe(count0 + 6)
    expect(sample(text, 'svc_http_request_duration_seconds_sum')).toBeGreaterThan(0)
    // The histogram has no labels besides `le`.
    expect(text).not.toMatch(/svc_http_request_duration_seconds_bucket\{(?!le=)/)
  })

  it('does not count its own scrapes', async () => {
    const a = await scrape()
    const b = await scrape()
    const total = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('svc_http_requests_total{'))
        .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0)
    expect(total(b.text)).toBe(total(a.text))
  })

  it('needs no authentication and ignores tokens', async () => {
    expect((await scrape()).status).toBe(200)
    expect((await scrape({ authorization: 'Bearer not-a-token' })).status).toBe(200)
    expect((await scrape({ authorization: `Bearer ${t.suToken}` })).status).toBe(200)
  })

  it('never appears in the request logs', async () => {
    await scrape()
    await t.api('GET', '/api/health?after-scrape=1')
    await t.server.app.services.get('logs').flush()
    const res = await t.api(
      'GET',
      `/api/logs?filter=${encodeURIComponent("data.url ~ 'metrics'")}`,
      {
        token: t.suToken,
      },
    )
    expect(res.status).toBe(200)
    expect(res.body.totalItems).toBe(0)
    const health = await t.api(
      'GET',
      `/api/logs?filter=${encodeURIComponent("data.url = '/api/health?after-scrape=1'")}`,
      { token: t.suToken },
    )
    expect(health.body.totalItems).toBe(1)
  })

  it('keeps each app’s metrics in its own registry', async () => {
    const other = await startServer()
    try {
      await other.api('GET', '/api/nope')
      const mine = await scrape()
      const theirs = await (await fetch(`${other.url}/metrics`)).text()
      expect(sample(theirs, 'svc_http_requests_total{method="GET",status="404"}')).toBe(1)
      expect(sample(mine.text, 'svc_http_requests_total{method="GET",status="404"}')).toBe(1)
      expect(globalRegistry.getSingleMetric('svc_http_requests_total')).toBeUndefined()
    } finally {
      await other.close()
    }
  })

  it('passes promtool check metrics', async () => {
    await t.api('GET', '/api/health')
    await t.api('GET', '/api/nope')
    const { text } = await scrape()
    const { status, output } = promtoolCheck(text)
    expect(output).toBe('')
    expect(status).toBe(0)
  })
})

describe('promtool for a fresh machine', () => {
  const script = join(process.cwd(), 'scripts', 'promtool.sh')

  /**
   * Runs `scripts/promtool.sh install` with only `dir` on PATH (plus the coreutils it needs), so
   * fake `apt-get` and `promtool` stand in for the real ones.
   */
  const install = (dir: string) =>
    spawnSync('/bin/bash', [script, 'install'], {
      encoding: 'utf8',
      env: { PATH: dir, TMPDIR: dir },
    })

  /** A temporary PATH folder with the coreutils used here, and the given fake commands. */
  const fakePath = (commands: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-promtool-'))
    for (const tool of ['tail', 'tr', 'chmod', 'dirname']) {
      const real = spawnSync('/bin/bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' })
      writeFileSync(join(dir, tool), `#!/bin/bash\nexec ${real.stdout.trim()} "$@"\n`)
      chmodSync(join(dir, tool), 0o755)
    }
    for (const [name, body] of Object.entries(commands)) {
      writeFileSync(join(dir, name), `#!/bin/bash\n${body}\n`)
      chmodSync(join(dir, name), 0o755)
    }
    return dir
  }
  const dirs: string[] = []
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

  it('installs Debian prometheus with apt-get when promtool is missing', () => {
    const dir = fakePath({
      'apt-get': `echo "$*" >> "$(dirname "$0")/apt-calls"
[ "$1" = install ] && printf '#!/bin/bash\\n' > "$(dirname "$0")/promtool" && chmod +x "$(dirname "$0")/promtool"
exit 0`,
    })
    dirs.push(dir)
    const res = install(dir)
    expect(res.stderr).toContain('installed prometheus')
    expect(res.status).toBe(0)
    expect(readFileSync(join(dir, 'apt-calls'), 'utf8')).toBe(
      'install -y --no-install-recommends prometheus\n',
    )
    expect(existsSync(join(dir, 'promtool'))).toBe(true)
  })

  it('does nothing when promtool is already there', () => {
    const dir = fakePath({
      promtool: 'exit 0',
      'apt-get': 'echo called > "$(dirname "$0")/apt-calls"',
    })
    dirs.push(dir)
    const res = install(dir)
    expect(res.status).toBe(0)
    expect(existsSync(join(dir, 'apt-calls'))).toBe(false)
  })

  it('fails clearly when apt-get cannot install it', () => {
    const dir = fakePath({ 'apt-get': 'echo "E: are you root?" >&2; exit 100' })
    dirs.push(dir)
    const res = install(dir)
    expect(res.status).toBe(1)
    expect(res.stderr).toContain('apt-get update failed (needs root')
    expect(res.stderr).toContain('E: are you root?')
  })

  it('fails clearly without apt-get', () => {
    const dir = fakePath({})
    dirs.push(dir)
    const res = install(dir)
    expect(res.status).toBe(1)
    expect(res.stderr).toContain('apt-get is not available')
  })

  it('is installed by the global setup whenever the run includes this file', () => {
    expect(runUses(/promtool/, ['run'])).toBe(true)
    expect(runUses(/promtool/, ['run', 'test/metrics.test.ts'])).toBe(true)
    expect(runUses(/promtool/, ['run', 'metrics'])).toBe(true)
    expect(runUses(/promtool/, ['run', 'test/cli.test.ts'])).toBe(false)
    expect(runUses(/promtool/, ['run', '-t', 'metrics', 'test/cli.test.ts'])).toBe(false)
  })
})
