/**
 * Idle memory (issue 19): packages a feature needs only when it is used are not loaded by a
 * server that has started and answered requests, and are loaded by the first use. The server is
 * the CLI from its sources, in a child process; a preload prints the CommonJS packages loaded so
 * far (Node's module cache) on SIGUSR2. Memory itself is measured by the bench (`bench/memory.ts`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SVCBASE_READY } from '../bench/servers.js'

/** Prints `LOADED <json list of module paths>` on SIGUSR2. */
const PRELOAD = `data:text/javascript,${encodeURIComponent(
  "import Module from 'node:module'; process.on('SIGUSR2', () => console.log('LOADED ' + JSON.stringify(Object.keys(Module._cache))))",
)}`

/**
 * Packages loaded on first use (tools/lazy-module.ts; esbuild is left out: tsx loads it), and
 * those only prom-client's index loads (the metrics take its three classes from their files).
 */
const LAZY = [
  'yazl',
  'yauzl',
  'qrcode',
  're2js',
  'web-push',
  'mime-types',
  '@fastify/send',
  'tdigest',
  '@opentelemetry/api',
]

const root = mkdtempSync(join(tmpdir(), 'svcbase-idle-'))
let child: ChildProcess | undefined
afterAll(() => {
  child?.kill('SIGKILL')
  rmSync(root, { recursive: true, force: true })
})

/** Starts the server; resolves to its base URL once it listens. */
function start(): Promise<string> {
  const c = spawn(
    process.execPath,
    [
      '--import',
      PRELOAD,
      '--import',
      'tsx',
      'src/cli.ts',
      'serve',
      '--http=127.0.0.1:0',
      `--dir=${join(root, 'data')}`,
    ],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  )
  child = c
  let out = ''
  c.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
  return new Promise((resolve, reject) => {
    c.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${out}`)))
    c.stdout.on('data', () => {
      const m = SVCBASE_READY.exec(out)
      if (m) resolve(m[1]!)
    })
  })
}

/** The packages (folder names under node_modules) the server has loaded so far. */
function loadedPackages(): Promise<Set<string>> {
  const c = child!
  return new Promise((resolve) => {
    let out = ''
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8')
      const line = out.split('\n').find((l) => l.startsWith('LOADED ') && l.endsWith(']'))
      if (!line) return
      c.stdout!.off('data', onData)
      const paths = JSON.parse(line.slice('LOADED '.length)) as string[]
      const names = paths.map((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p)?.[1] ?? '')
      resolve(new Set(names.filter(Boolean)))
    }
    c.stdout!.on('data', onData)
    c.kill('SIGUSR2')
  })
}

describe('packages loaded on first use', () => {
  it('are not loaded after start and a few requests, nor by a QR code (drawn on a CPU worker thread)', async () => {
    const url = await start()
    const health = await fetch(`${url}/api/health`)
    expect(health.status).toBe(200)
    const list = await fetch(`${url}/api/collections/users/records`)
    expect(list.status).toBeLessThan(500)

    const before = await loadedPackages()
    // The server's own packages are seen (the check can fail), the lazy ones are not.
    expect(before.has('fastify')).toBe(true)
    expect(before.has('better-sqlite3')).toBe(true)
    for (const name of LAZY) expect(before.has(name), name).toBe(false)

    const qr = await fetch(`${url}/api/utils/qr?data=hello&format=svg&size=64`)
    expect(qr.status).toBe(200)
    expect(await qr.text()).toContain('<svg')
    // The matrix is made on the CPU pool's threads (security issue #32): the event loop's thread
    // never loads the encoder.
    const after = await loadedPackages()
    for (const name of LAZY) expect(after.has(name), name).toBe(false)
  })
})
