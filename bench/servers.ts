/**
 * The processes under test: svcbase from the compiled `dist/`, and the bare baseline server.
 * Each runs as its own child process, so the load generator in this process never shares its
 * event loop with them; both listen on a random loopback port.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The repository root (the parent of `bench/`). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** A server child process and how to reach and stop it. */
export interface ServerProcess {
  /** A short name for progress lines. */
  name: string
  /** The base URL, e.g. `http://127.0.0.1:41234`. */
  url: string
  pid: number
  /** The resident set size of the process in MiB, from `/proc/<pid>/status`. */
  rssMb(): number
  /** SIGTERM, then SIGKILL after 10 s; resolves once the process has exited. */
  stop(): Promise<void>
}

/**
 * The line `svcbase serve` prints once it listens (`svcbase 0.1.0 serving http://…/api/ …`);
 * group 1 is the base URL. The CLI tests wait for the same line, so a change to it fails them.
 */
export const SVCBASE_READY = /svcbase \S+ serving (http:\/\/\S+)\/api\//

const running = new Set<ChildProcess>()

// NB: never leave a server behind when the runner dies; only our own children are signalled.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** SIGTERM, then SIGKILL after 10 s; resolves once `exited` does (at once if already gone). */
export async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(killer)
}

/** The VmRSS of a process in MiB. */
export function readRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(kb[1]) / 1024
}

function spawnServer(
  name: string,
  args: string[],
  ready: RegExp,
  timeoutMs = 60_000,
  cwd = ROOT,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  const tail: string[] = []
  const remember = (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').split('\n'))
    tail.splice(0, Math.max(0, tail.length - 40))
  }
  // Both pipes are always drained, so a chatty server (mail to stdout) never blocks on them.
  child.stderr.on('data', remember)
  return new Promise((resolve, reject) => {
    let url = ''
    const timer = setTimeout(() => fail(`${name} did not start in ${timeoutMs} ms`), timeoutMs)
    function fail(message: string) {
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(new Error(`${message}\n${tail.join('\n')}`))
    }
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    child.once('exit', (code) => {
      running.delete(child)
      if (!url) fail(`${name} exited with ${code} before listening`)
    })
    child.stdout.on('data', (chunk: Buffer) => {
      remember(chunk)
      if (url) return
      const m = ready.exec(tail.join('\n'))
      if (!m) return
      url = m[1]!.replace(/\/api\/?$/, '')
      clearTimeout(timer)
      const pid = child.pid!
      resolve({
        name,
        url,
        pid,
        rssMb: () => readRssMb(pid),
        stop: () => stopChild(child, exited),
      })
    })
  })
}

/** Creates the first superuser of a data dir with the compiled CLI (of the checkout at `root`). */
export function createSuperuser(
  dir: string,
  email: string,
  password: string,
  extraArgs: readonly string[] = [],
  root = ROOT,
): void {
  execFileSync(
    process.execPath,
    ['dist/cli.js', 'superuser', 'create', email, password, `--dir=${dir}`, ...extraArgs],
    { cwd: root, stdio: 'pipe' },
  )
}

/** `serve --workers N` is ready once its primary says every worker is. */
const WORKERS_READY =
  /svcbase \S+ serving (http:\/\/\S+)\/api\/[\s\S]*worker processes share the address/

/**
 * Starts `node dist/cli.js serve` on a random loopback port over `dir` (`--workers N` when
 * asked: the pid is then the primary's); with `BENCH_CPU_PROF=DIR` the server writes a V8 CPU
 * profile into DIR when it stops. `root` runs another checkout's build (`bench/versions.ts`).
 */
export function startSvcbase(
  dir: string,
  options: { workers?: number; extraArgs?: readonly string[]; root?: string } = {},
): Promise<ServerProcess> {
  const workers = options.workers ?? 1
  const prof = workers > 1 ? undefined : process.env.BENCH_CPU_PROF
  return spawnServer(
    'svcbase',
    [
      ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []),
      'dist/cli.js',
      'serve',
      '--http=127.0.0.1:0',
      `--dir=${dir}`,
      ...(workers > 1 ? [`--workers=${workers}`] : []),
      ...(options.extraArgs ?? []),
    ],
    workers > 1 ? WORKERS_READY : SVCBASE_READY,
    60_000,
    options.root,
  )
}

/** Starts the bare Fastify + better-sqlite3 server over `dbFile`, serving `tables`. */
export function startBaseline(dbFile: string, tables: string[]): Promise<ServerProcess> {
  return spawnServer(
    'baseline',
    [
      '--import',
      'tsx',
      'bench/baseline-server.ts',
      `--db=${dbFile}`,
      `--tables=${tables.join(',')}`,
    ],
    /baseline listening (http:\/\/\S+)/,
  )
}

/** Starts the bare Fastify + pg server over the `baseline` schema of `url`, serving `tables`. */
export function startPostgresBaseline(url: string, tables: string[]): Promise<ServerProcess> {
  return spawnServer(
    'baseline (PostgreSQL)',
    [
      '--import',
      'tsx',
      'bench/baseline-postgres-server.ts',
      `--url=${url}`,
      `--tables=${tables.join(',')}`,
      '--http=127.0.0.1:0',
    ],
    /baseline listening (http:\/\/\S+)/,
  )
}
