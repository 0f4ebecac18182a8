/**
 * `serve --workers 2` from the CLI's sources (as test/cli.test.ts runs the CLI), for the tests of
 * several worker processes: started on a random port over `dataDir`, ready once the primary says
 * both workers share the address.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { SVCBASE_READY } from '../../bench/servers.js'

/** The CLI from its sources, as test/cli.test.ts runs it. */
export const CLI = ['--import', 'tsx', 'src/cli.ts']
const ALL_READY = /2 worker processes share the address \(pids (\d+), (\d+); primary (\d+)\)/

/** A running `serve --workers 2`. */
export interface WorkersCli {
  child: ChildProcess
  url: string
  /** The two workers' pids, sorted. */
  workerPids: number[]
  primaryPid: number
  /** The one-time setup token the primary printed. */
  setupToken: string
  /** Everything the processes printed so far (stdout and stderr). */
  output: () => string
}

/** Starts `serve --workers=2 --dir=<dataDir> --hooksDir=<hooksDir>` and waits until it serves. */
export async function startWorkersCli(dataDir: string, hooksDir: string): Promise<WorkersCli> {
  const child = spawn(
    process.execPath,
    [
      ...CLI,
      'serve',
      '--workers=2',
      `--dir=${dataDir}`,
      `--hooksDir=${hooksDir}`,
      '--http=127.0.0.1:0',
    ],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const pids = await new Promise<number[]>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = ALL_READY.exec(out)
      if (m) resolve([Number(m[1]), Number(m[2]), Number(m[3])])
    })
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}`)))
  })
  return {
    child,
    url: SVCBASE_READY.exec(out)![1]!,
    workerPids: [pids[0]!, pids[1]!].sort(),
    primaryPid: pids[2]!,
    setupToken: /setup token:\n\s+(\S+)/.exec(out)![1]!,
    output: () => out,
  }
}
