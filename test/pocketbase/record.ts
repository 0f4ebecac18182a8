/**
 * `npm run oracle:record [-- group...]`: records PocketBase's answers to the differential corpus
 * (test/pocketbase/groups/) into test/pocketbase/answers/<group>.json. Each group runs on a fresh
 * PocketBase 0.40.4 (`../shared/oracle/pocketbase.sh`, else `POCKETBASE_BIN`) in a temp dir, on
 * loopback, with the harness's superuser. The replay (test/pocketbase-differential.test.ts) needs
 * no oracle. Recorders of their own (`RECORDERS`: a PocketBase data folder, …) run too, or by name.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { GROUPS } from './groups/index.js'
import { chosenIds, normalise, ORACLE_VERSION, runGroup, type Recording } from './harness.js'
import { withOracle } from './oracle.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Recorders of their own, each run as `tsx <file>`: name → file. */
const RECORDERS: Record<string, string> = {
  folder: 'folder/record.ts',
  hooks: 'hooks/record.ts',
  migrations: 'migrations/record.ts',
  'hooks-features': 'hooks/record-featurehooks.ts',
  'migrations-builders': 'migrations/record-builders.ts',
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const others = Object.keys(RECORDERS).filter((r) => args.length === 0 || args.includes(r))
  const wanted = args.filter((a) => !(a in RECORDERS))
  for (const r of others) {
    const file = join(ROOT, 'test', 'pocketbase', RECORDERS[r]!)
    execFileSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit' })
  }
  if (args.length > 0 && wanted.length === 0) return
  const unknown = wanted.filter((w) => !GROUPS.some((g) => g.name === w))
  if (unknown.length) {
    console.error(
      `unknown group(s): ${unknown.join(', ')}; known: ${[...GROUPS.map((g) => g.name), ...Object.keys(RECORDERS)].join(', ')}`,
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
