/**
 * The oracle for the recorders: PocketBase 0.40.4 (`../shared/oracle/pocketbase.sh`, else
 * `POCKETBASE_BIN`) started on loopback for one recording.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SUPERUSER } from './harness.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const ORACLE = join(ROOT, '..', 'shared', 'oracle', 'pocketbase.sh')

export function oracleCommand(): string[] {
  if (process.env.POCKETBASE_BIN) return [process.env.POCKETBASE_BIN]
  if (existsSync(ORACLE)) return ['bash', ORACLE]
  throw new Error(
    `no PocketBase: neither ${ORACLE} nor POCKETBASE_BIN (docs/pocketbase.md, "Differences")`,
  )
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/** Options of {@link withOracle}. */
export interface OracleOptions {
  /** An app folder to serve (its `pb_data` kept afterwards); else a temp one, removed after. */
  dir?: string
}

/**
 * Runs `fn` against PocketBase 0.40.4 serving on a free loopback port, then stops it. The app
 * folder holds `pb_data`, `pb_migrations`, `pb_hooks` and `pb_public`; the harness's superuser is
 * upserted first into a new folder.
 */
export async function withOracle<T>(
  fn: (url: string, dir: string) => Promise<T>,
  options: OracleOptions = {},
): Promise<T> {
  const [cmd, ...pre] = oracleCommand()
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'svcbase-oracle-'))
  const d = (name: string) => {
    mkdirSync(join(dir, name), { recursive: true })
    return join(dir, name)
  }
  const data = d('pb_data')
  const dirs = [
    `--migrationsDir=${d('pb_migrations')}`,
    `--hooksDir=${d('pb_hooks')}`,
    `--publicDir=${d('pb_public')}`,
  ]
  // NB: an upsert sets the password again, which renews the superuser's tokenKey: a folder that
  // has data keeps its superuser (and the tokens PocketBase issued to it).
  if (!existsSync(join(data, 'data.db')))
    execFileSync(
      cmd!,
      [...pre, 'superuser', 'upsert', SUPERUSER.email, SUPERUSER.password, `--dir=${data}`],
      { stdio: 'pipe' },
    )
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(
    cmd!,
    [...pre, 'serve', '--dev=false', `--dir=${data}`, ...dirs, `--http=127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  child.stdout.on('data', (b: Buffer) => (out += b.toString()))
  child.stderr.on('data', (b: Buffer) => (out += b.toString()))
  try {
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        if ((await fetch(`${url}/api/health`)).ok) break
      } catch {
        // not yet
      }
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`PocketBase did not start:\n${out}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    return await fn(url, dir)
  } finally {
    // NB: a PocketBase that exited already (it failed to start) sends no second 'exit'.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    }
    if (!options.dir) rmSync(dir, { recursive: true, force: true })
  }
}
