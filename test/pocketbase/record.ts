/**
 * `npm run oracle:record [-- group...]`: records PocketBase's answers to the differential corpus
 * (test/pocketbase/groups/) into test/pocketbase/answers/<group>.json. Each group runs on a fresh
 * PocketBase 0.40.4 (`../shared/oracle/pocketbase.sh`, else `POCKETBASE_BIN`) in a temp dir, on
 * loopback, with the harness's superuser. The replay (test/pocketbase-differential.test.ts) needs
 * no oracle.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { GROUPS } from './groups/index.js'
import {
  chosenIds,
  normalise,
  ORACLE_VERSION,
  runGroup,
  SUPERUSER,
  type Recording,
} from './harness.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const ORACLE = join(ROOT, '..', 'shared', 'oracle', 'pocketbase.sh')

function oracleCommand(): string[] {
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

async function withOracle<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const [cmd, ...pre] = oracleCommand()
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-oracle-'))
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
  execFileSync(
    cmd!,
    [...pre, 'superuser', 'upsert', SUPERUSER.email, SUPERUSER.password, `--dir=${data}`],
    {
      stdio: 'pipe',
    },
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
    return await fn(url)
  } finally {
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2)
  const unknown = wanted.filter((w) => !GROUPS.some((g) => g.name === w))
  if (unknown.length) {
    console.error(
      `unknown group(s): ${unknown.join(', ')}; known: ${GROUPS.map((g) => g.name).join(', ')}`,
    )
    process.exit(2)
  }
  const groups = wanted.length ? GROUPS.filter((g) => wanted.includes(g.name)) : GROUPS
  const dir = join(ROOT, 'test', 'pocketbase', 'answers')
  mkdirSync(dir, { recursive: true })
  let i = 0
  for (const group of groups) {
    i++
    const t0 = Date.now()
    const raw = await withOracle((url) => runGroup(url, group))
    const ids = chosenIds(group)
    const recording: Recording = {
      oracle: ORACLE_VERSION,
      recorded: new Date().toISOString().slice(0, 10),
      group: group.name,
      answers: raw.map((a) => ({ name: a.name, status: a.status, body: normalise(a.body, ids) })),
    }
    writeFileSync(join(dir, `${group.name}.json`), `${JSON.stringify(recording, null, 1)}\n`)
    console.log(
      `[${i}/${groups.length}] ${group.name}: ${raw.length} requests in ${Date.now() - t0} ms`,
    )
  }
}

await main()
