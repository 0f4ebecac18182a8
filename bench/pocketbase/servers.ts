/**
 * The servers compared by `npm run bench:pocketbase`: the real PocketBase (found as below, run as
 * a child on a fresh temp dir), svcbase from `dist/` (`../servers.ts`), and svcbase on a
 * throwaway PostgreSQL (`scripts/postgres.sh`, as `../postgres.ts`). Also what is measured from
 * outside: the RSS of the server process every 100 ms and the size of its data folder.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { join, relative } from 'node:path'
import {
  createSuperuser,
  readRssMb,
  ROOT,
  startSvcbase,
  stopChild,
  type ServerProcess,
} from '../servers.js'

export const SUPERUSER = { email: 'test@example.com', password: '1234567890' }

/** The oracle script of the shared folder (`../shared/oracle/pocketbase.sh` from the repo). */
export const ORACLE_SCRIPT = join(ROOT, '..', 'shared', 'oracle', 'pocketbase.sh')

/** Why the bench cannot compare: printed before any table, exit 1. */
export class RefusedError extends Error {}

const HOW_TO_GET =
  'Get PocketBase 0.40.4 from Debian: `apt-get update && apt-get download pocketbase` ' +
  '(pocketbase_0.40.4+ds1-1_amd64.deb), `dpkg-deb -x pocketbase_*.deb pb-deb`, then ' +
  'POCKETBASE_BIN=$PWD/pb-deb/usr/bin/base (the .deb installs the binary as /usr/bin/base). ' +
  'Keep the binary outside the temp folder: PocketBase turns dev mode on when it lies under it.'

/** The PocketBase binary: the shared oracle's when its script exists, else `POCKETBASE_BIN`. */
export function findPocketbase(): { bin: string; source: string; version: string } {
  let bin: string
  let source: string
  if (existsSync(ORACLE_SCRIPT)) {
    try {
      bin = execFileSync('bash', [ORACLE_SCRIPT, 'path'], { encoding: 'utf8' }).trim()
    } catch (err) {
      throw new RefusedError(`${ORACLE_SCRIPT} path failed: ${String(err)}\n${HOW_TO_GET}`)
    }
    source = ORACLE_SCRIPT
  } else if (process.env.POCKETBASE_BIN) {
    bin = process.env.POCKETBASE_BIN
    source = 'POCKETBASE_BIN'
  } else {
    throw new RefusedError(
      `PocketBase not found: no ${ORACLE_SCRIPT} and no POCKETBASE_BIN.\n${HOW_TO_GET}`,
    )
  }
  if (!existsSync(bin))
    throw new RefusedError(`PocketBase binary ${bin} (${source}) does not exist.\n${HOW_TO_GET}`)
  let version: string
  try {
    version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()
  } catch (err) {
    throw new RefusedError(`${bin} --version failed: ${String(err)}\n${HOW_TO_GET}`)
  }
  // Debian's build prints "(untracked)"; the oracle's .deb is 0.40.4.
  if (/untracked/.test(version) && source === ORACLE_SCRIPT) version = '0.40.4 (Debian build)'
  return { bin, source, version }
}

/** A free loopback port (listen on 0, close, hand the number on). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address()
      const port = typeof address === 'object' && address ? address.port : 0
      srv.close(() => resolve(port))
    })
  })
}

async function waitHealthy(url: string, timeoutMs: number, alive: () => boolean): Promise<boolean> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end && alive()) {
    try {
      const res = await fetch(`${url}/api/health`)
      await res.arrayBuffer()
      if (res.ok) return true
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return false
}

/** A started server with its data folder (what `du` is taken of). */
export interface BenchServer extends ServerProcess {
  dataDir: string
}

/**
 * Starts PocketBase on a fresh `<tmp>/pb_data` (superuser made first with `superuser upsert`);
 * refuses (RefusedError) when it does not answer `/api/health` within 30 s.
 */
export async function startPocketbase(bin: string, tmp: string): Promise<BenchServer> {
  const dirs = ['pb_data', 'pb_migrations', 'pb_hooks', 'pb_public'].map((d) => join(tmp, d))
  for (const d of dirs) mkdirSync(d, { recursive: true })
  const [data, migrations, hooks, pub] = dirs as [string, string, string, string]
  try {
    execFileSync(
      bin,
      ['superuser', 'upsert', SUPERUSER.email, SUPERUSER.password, `--dir=${data}`],
      {
        stdio: 'pipe',
      },
    )
  } catch (err) {
    throw new RefusedError(`PocketBase superuser upsert failed: ${String(err)}`)
  }
  const port = await freePort()
  const args = ['serve', '--dev=false', `--http=127.0.0.1:${port}`, `--dir=${data}`]
  args.push(`--migrationsDir=${migrations}`, `--hooksDir=${hooks}`, `--publicDir=${pub}`)
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  const tail: string[] = []
  const keep = (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').split('\n'))
    tail.splice(0, Math.max(0, tail.length - 30))
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  process.once('exit', () => child.kill('SIGKILL'))
  const url = `http://127.0.0.1:${port}`
  const alive = () => child.exitCode === null && child.signalCode === null
  if (!(await waitHealthy(url, 30_000, alive))) {
    await stopChild(child, exited)
    throw new RefusedError(
      `PocketBase did not start (${bin} ${args.join(' ')}):\n${tail.join('\n')}`,
    )
  }
  const pid = child.pid!
  return {
    name: 'PocketBase',
    url,
    pid,
    dataDir: data,
    rssMb: () => readRssMb(pid),
    stop: () => stopChild(child, exited),
  }
}

/**
 * Starts svcbase from `dist/` over a fresh `dir` (superuser created first); `db` = `--db=URL`;
 * `workers` > 1 = `serve --workers`, whose RSS is the sum over the primary and its workers.
 */
export async function startSvcbaseFresh(
  dir: string,
  db?: string,
  workers = 1,
): Promise<BenchServer> {
  const extra = db ? [`--db=${db}`] : []
  createSuperuser(dir, SUPERUSER.email, SUPERUSER.password, extra)
  const svc = await startSvcbase(dir, { extraArgs: extra, workers })
  return { ...svc, dataDir: dir, rssMb: () => treeRssMb(svc.pid) }
}

/** The RSS of a process and all its descendants, in MiB. */
export function treeRssMb(pid: number): number {
  let sum = readRssMb(pid)
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let children = ''
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
    } catch {
      continue // the thread ended
    }
    for (const child of children.split(' ').filter(Boolean)) {
      try {
        sum += treeRssMb(Number(child))
      } catch {
        // the child exited meanwhile
      }
    }
  }
  return sum
}

/** The RSS of a server (`read`) sampled every 100 ms, with a peak per phase and overall. */
export class RssSampler {
  private timer: NodeJS.Timeout
  peak = 0
  phasePeak = 0
  last = 0

  constructor(private readonly read: () => number) {
    this.sample()
    this.timer = setInterval(() => this.sample(), 100)
    this.timer.unref()
  }

  private sample(): void {
    try {
      this.last = this.read()
    } catch {
      return // exited
    }
    this.peak = Math.max(this.peak, this.last)
    this.phasePeak = Math.max(this.phasePeak, this.last)
  }

  /** The peak since the previous call, and starts a new phase. */
  endPhase(): number {
    this.sample()
    const p = this.phasePeak
    this.phasePeak = this.last
    return p
  }

  stop(): void {
    this.sample()
    clearInterval(this.timer)
  }
}

/** The size of a data folder: the sum of its files and the biggest of them (paths relative). */
export function dataSize(
  dir: string,
  top = 5,
): { bytes: number; biggest: { file: string; bytes: number }[] } {
  const files: { file: string; bytes: number }[] = []
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name)
      if (entry.isDirectory()) walk(p)
      else if (entry.isFile()) files.push({ file: relative(dir, p), bytes: statSync(p).size })
    }
  }
  if (existsSync(dir)) walk(dir)
  files.sort((a, b) => b.bytes - a.bytes)
  return { bytes: files.reduce((s, f) => s + f.bytes, 0), biggest: files.slice(0, top) }
}

/** A throwaway PostgreSQL cluster (`scripts/postgres.sh`), one database per round. */
export interface Postgres {
  url(database: string): string
  stop(): void
}

/** Starts the cluster in `dir` on a free loopback port. */
export async function startPostgres(dir: string): Promise<Postgres> {
  const port = String(await freePort())
  execFileSync('bash', [join(ROOT, 'scripts', 'postgres.sh'), 'start', dir], {
    env: { ...process.env, SVC_PG_PORT: port, SVC_PG_FSYNC: 'on' },
    stdio: 'pipe',
  })
  const env = readFileSync(join(dir, 'env'), 'utf8')
  const base = new URL(/SVC_TEST_PG_URL=(\S+)/.exec(env)![1]!)
  return {
    url(database) {
      const u = new URL(base)
      u.pathname = `/${database}`
      return u.toString()
    },
    stop() {
      execFileSync('bash', [join(ROOT, 'scripts', 'postgres.sh'), 'stop', dir], { stdio: 'pipe' })
    },
  }
}
