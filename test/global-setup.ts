/**
 * Vitest global setup: installs and starts what the tests need on a fresh machine, so
 * `npm ci && npm test` works with nothing else run first.
 *
 * promtool (Debian `prometheus`, scripts/promtool.sh) for the metrics test:
 * - installed when missing and the run includes a test file that mentions `promtool`;
 * - a failure to install fails the whole run (the metrics test never skips).
 *
 * Debian's unzip and the sqlite3 CLI (scripts/archive-tools.sh) for the backups tests, which open
 * archives with tools independent of svcbase: installed when missing and the run includes a test
 * file that mentions `unzipTest` or `sqlite3(`; a failure to install fails the run.
 *
 * A real S3-compatible server (Ceph RGW, scripts/s3-server.sh), whose address reaches the test
 * workers through `SVC_TEST_S3_*` variables (forks inherit this process's environment).
 * Teardown stops it.
 * - Skipped when `SVC_TEST_S3_ENDPOINT` is already set (a server you run yourself).
 * - Skipped when the run is filtered to test files that never mention S3 (no file among them
 *   contains `SVC_TEST_S3` or imports `helpers/s3`), so a focused run stays fast;
 *   `SVC_TEST_S3=always` starts it anyway.
 * - Otherwise a failure to install or start the server fails the whole run: S3 tests never skip.
 *
 * A real PostgreSQL (Debian's postgresql-15, scripts/postgres.sh) in a throwaway cluster on a
 * free port, whose URL reaches the workers as `SVC_TEST_PG_URL`; teardown stops it.
 * - Started when the run is the PostgreSQL pass (`SVC_TEST_DATABASE=postgres`, set by
 *   vitest.postgres.config.ts) or includes a test file that mentions `SVC_TEST_PG_URL`.
 * - Skipped when `SVC_TEST_PG_URL` is already set (a server you run yourself).
 * - In the PostgreSQL pass, `SVC_DATABASE_URL` is that server and `SVC_DATABASE_SCHEMA` is `@dir`,
 *   so every test app (CLI children included) keeps its data in a schema of its own.
 * - A failure to install or start it fails the whole run.
 */
import { execFile } from 'node:child_process'
import { createServer } from 'node:net'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))

/** Runs one of the scripts under `scripts/`; rejects with its output when it fails. */
function runScript(name: string, args: string[]): Promise<string> {
  return new Promise((ok, fail) => {
    execFile(
      'bash',
      [join(root, 'scripts', name), ...args],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) fail(new Error(`scripts/${name} ${args.join(' ')} failed:\n${stderr}${stdout}`))
        else ok(stderr)
      },
    )
  })
}

/** Runs the S3 server script. */
const run = (args: string[]) => runScript('s3-server.sh', args)

/** Vitest CLI options that take a value (their value is not a file filter). */
const valued = new Set([
  '-t',
  '--testNamePattern',
  '-c',
  '--config',
  '-r',
  '--root',
  '--dir',
  '--reporter',
  '--outputFile',
  '--project',
  '--pool',
  '--shard',
  '--maxWorkers',
  '--environment',
  '--mode',
  '--testTimeout',
  '--hookTimeout',
  '--tags',
])

/** The file filters given on the command line, or null when the run is not filtered. */
function cliFilters(args: string[]): string[] | null {
  const filters: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a.startsWith('-')) {
      if (valued.has(a)) i++
      continue
    }
    if (filters.length === 0 && ['run', 'watch', 'dev'].includes(a)) continue
    if (a === 'related') return null
    filters.push(a)
  }
  return filters.length > 0 ? filters : null
}

/** Test files under `dir`, as absolute paths. */
function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts') && !f.includes('node_modules'))
    .map((f) => join(dir, f))
}

/**
 * True unless the run (vitest's arguments `args`) is filtered to test files none of which
 * matches `uses` (their source text is searched).
 */
export function runUses(uses: RegExp, args: string[] = process.argv.slice(2)): boolean {
  const filters = cliFilters(args)
  if (!filters) return true
  const users = [...testFiles(join(root, 'src')), ...testFiles(join(root, 'test'))].filter((f) =>
    uses.test(readFileSync(f, 'utf8')),
  )
  return filters.some((filter) => {
    const plain = filter.replace(/^\.\//, '').split('/').join(sep)
    const absolute = resolve(filter)
    return users.some((f) => f.includes(plain) || f.startsWith(absolute))
  })
}

/** True unless the run is filtered to files none of which use the S3 server. */
function runNeedsS3(): boolean {
  if (process.env.SVC_TEST_S3 === 'always') return true
  return runUses(/SVC_TEST_S3|helpers\/s3/)
}

/** Installs promtool when the run includes the metrics test; fails the run when it cannot. */
async function ensurePromtool(): Promise<void> {
  if (!runUses(/promtool/)) return
  try {
    await runScript('promtool.sh', ['install'])
  } catch (err) {
    throw new Error(
      `promtool (Debian package prometheus) could not be installed, so the metrics test cannot run: ${
        err instanceof Error ? err.message : String(err)
      }`,
      { cause: err },
    )
  }
}

/** Installs unzip and sqlite3 when the run includes a backups test; fails the run when it cannot. */
async function ensureArchiveTools(): Promise<void> {
  if (!runUses(/unzipTest|sqlite3\(/)) return
  try {
    await runScript('archive-tools.sh', ['install'])
  } catch (err) {
    throw new Error(
      `unzip and sqlite3 (Debian packages) could not be installed, so the backups tests cannot run: ${
        err instanceof Error ? err.message : String(err)
      }`,
      { cause: err },
    )
  }
}

/**
 * For the dashboard's browser tests (files importing `helpers/browser`): installs Chromium
 * (scripts/chromium.sh) and builds the dashboard afresh into a temporary folder of this run (so
 * runs side by side never share a half-built one), so the tests run the sources as they are now;
 * its folder reaches the workers as `SVC_TEST_UI_DIR`. Returns its removal.
 */
async function prepareDashboard(): Promise<(() => void) | undefined> {
  if (process.env.SVC_TEST_DATABASE === 'postgres' || !runUses(/helpers\/browser/)) return
  try {
    await runScript('chromium.sh', ['install'])
  } catch (err) {
    throw new Error(
      `Chromium (Debian package chromium) could not be installed, so the dashboard tests cannot run: ${
        err instanceof Error ? err.message : String(err)
      }`,
      { cause: err },
    )
  }
  const out = mkdtempSync(join(tmpdir(), 'svcbase-ui-'))
  await new Promise<void>((ok, fail) => {
    execFile(
      process.execPath,
      [
        join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
        'build',
        '-c',
        'ui/vite.config.ts',
        '--outDir',
        out,
        '--emptyOutDir',
      ],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        err ? fail(new Error(`the dashboard build failed:\n${stderr}${stdout}`)) : ok(),
    )
  })
  process.env.SVC_TEST_UI_DIR = out
  return () => rmSync(out, { recursive: true, force: true })
}

/** Parses the `KEY=value` lines of the server's env file. */
function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim())
    if (m) out[m[1]!] = m[2]!
  }
  return out
}

/** A TCP port free on 127.0.0.1 right now. */
function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer()
    srv.once('error', fail)
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address()
      srv.close(() =>
        typeof address === 'object' && address ? ok(address.port) : fail(new Error('no port')),
      )
    })
  })
}

/** Starts PostgreSQL when the run needs it (see the module comment); returns its teardown. */
async function startPostgres(): Promise<(() => Promise<void>) | undefined> {
  const pass = process.env.SVC_TEST_DATABASE === 'postgres'
  let teardown: (() => Promise<void>) | undefined
  if (!process.env.SVC_TEST_PG_URL && (pass || runUses(/SVC_TEST_PG_URL/))) {
    const started = Date.now()
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-pg-'))
    const pgRun = (args: string[]) => runScript('postgres.sh', args)
    const stop = async () => {
      await pgRun(['stop', dir]).catch((err: unknown) => console.error(String(err)))
      rmSync(dir, { recursive: true, force: true })
    }
    try {
      process.env.SVC_PG_PORT = String(await freePort())
      await pgRun(['install'])
      await pgRun(['start', dir])
      const url = parseEnv(readFileSync(join(dir, 'env'), 'utf8')).SVC_TEST_PG_URL
      if (!url) throw new Error('the PostgreSQL env file has no SVC_TEST_PG_URL')
      process.env.SVC_TEST_PG_URL = url
    } catch (err) {
      await stop()
      throw new Error(
        `The PostgreSQL test server could not be started, so the PostgreSQL tests cannot run: ${
          err instanceof Error ? err.message : String(err)
        }`,
        { cause: err },
      )
    }
    console.log(
      `PostgreSQL test server ready at ${process.env.SVC_TEST_PG_URL} after ${(Date.now() - started) / 1000} s`,
    )
    teardown = stop
  }
  if (pass) {
    process.env.SVC_DATABASE_URL = process.env.SVC_TEST_PG_URL
    process.env.SVC_DATABASE_SCHEMA = '@dir'
  }
  return teardown
}

/**
 * Installs promtool, starts PostgreSQL and the S3 server (each unless not needed); returns the
 * teardown.
 */
export default async function setup(): Promise<(() => Promise<void>) | void> {
  const dropUi = await prepareDashboard()
  try {
    const stopPostgres = await startPostgres()
    try {
      const stopS3 = await setupS3()
      if (!stopS3 && !stopPostgres && !dropUi) return
      return async () => {
        try {
          await stopS3?.()
        } finally {
          await stopPostgres?.()
          dropUi?.()
        }
      }
    } catch (err) {
      await stopPostgres?.()
      throw err
    }
  } catch (err) {
    dropUi?.()
    throw err
  }
}

/** Installs promtool and starts the S3 server (each unless not needed); returns the teardown. */
async function setupS3(): Promise<(() => Promise<void>) | undefined> {
  // The SDK pinned for Node 20 warns once per process that later releases need Node 22.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'
  // NB: before the S3 server's install: both use apt-get, which allows one run at a time.
  await ensurePromtool()
  await ensureArchiveTools()
  if (process.env.SVC_TEST_S3_ENDPOINT) return undefined
  if (!runNeedsS3()) return undefined
  const started = Date.now()
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-s3-'))
  const stop = async () => {
    await run(['stop', dir]).catch((err: unknown) => console.error(String(err)))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await run(['install'])
    await run(['start', dir])
    const env = parseEnv(readFileSync(join(dir, 'env'), 'utf8'))
    for (const key of [
      'SVC_TEST_S3_ENDPOINT',
      'SVC_TEST_S3_BUCKET',
      'SVC_TEST_S3_ACCESS_KEY',
      'SVC_TEST_S3_SECRET',
      'SVC_TEST_S3_REGION',
    ]) {
      const value = env[key]
      if (!value) throw new Error(`the S3 server's env file has no ${key}`)
      process.env[key] = value
    }
  } catch (err) {
    await stop()
    throw new Error(
      `The S3 test server (Ceph RGW) could not be started, so the S3 tests cannot run: ${
        err instanceof Error ? err.message : String(err)
      }`,
      { cause: err },
    )
  }
  console.log(
    `S3 test server (Ceph RGW) ready at ${process.env.SVC_TEST_S3_ENDPOINT} after ${
      (Date.now() - started) / 1000
    } s`,
  )
  return async () => {
    const t = Date.now()
    await stop()
    console.log(`S3 test server stopped in ${(Date.now() - t) / 1000} s`)
  }
}
