/**
 * svcbase instances as CLI child processes on one PostgreSQL schema (`serve --db=<url>
 * --dbSchema=<schema>`), for the tests of several instances: start, call, stop.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { SVCBASE_READY } from '../../bench/servers.js'

/** The CLI from its sources, as test/cli.test.ts runs it. */
const CLI = ['--import', 'tsx', 'src/cli.ts']

/** A running instance. */
export interface Instance {
  child: ChildProcess
  /** `http://127.0.0.1:<port>`. */
  base: string
  /** Everything it printed so far (stdout and stderr). */
  output: () => string
}

/** Where the instances of one test keep their data. */
export interface Place {
  url: string
  schema: string
  /** A temporary folder: each instance gets `<root>/<name>` as `--dir`. */
  root: string
}

/** Runs the CLI to its end (`superuser create …`); resolves with the exit code. */
export function runCli(place: Place, args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [...CLI, ...args, `--db=${place.url}`, `--dbSchema=${place.schema}`],
      { stdio: 'ignore' },
    )
    child.once('exit', (code) => resolve(code))
  })
}

/** Starts `serve` for instance `name`; resolves once it serves. */
export function serve(place: Place, name: string): Promise<Instance> {
  const child = spawn(
    process.execPath,
    [
      ...CLI,
      'serve',
      '--http=127.0.0.1:0',
      `--dir=${join(place.root, name)}`,
      `--db=${place.url}`,
      `--dbSchema=${place.schema}`,
      `--hooksDir=${join(place.root, 'hooks')}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  return new Promise((resolve, reject) => {
    const take = (d: Buffer) => {
      out += d.toString()
      const m = SVCBASE_READY.exec(out)
      if (m) resolve({ child, base: m[1]!, output: () => out })
    }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    child.once('exit', (code) => reject(new Error(`serve ${name} exited with ${code}:\n${out}`)))
  })
}

/** Stops an instance with SIGTERM (SIGCONT first, in case it was stopped) and waits for it. */
export function stop(i: Instance): Promise<void> {
  return new Promise((resolve) => {
    const { child } = i
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGCONT')
    child.kill('SIGTERM')
  })
}

/** One JSON request; the body parsed when it is JSON. */
export async function call(
  i: Instance,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${i.base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: token } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  let parsed: any = text
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed }
}
