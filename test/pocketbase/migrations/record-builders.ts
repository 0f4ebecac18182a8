/**
 * `tsx test/pocketbase/migrations/record-builders.ts`: records what PocketBase 0.40.4 makes of
 * the `builders/` migration folder beside this file (`app.db()`'s `insert`, `update`, `delete`,
 * `select(...)` and `upsert` with `$dbx` conditions; the file keeps what they answered in a
 * `results` record) into `builders.json`, for test/migrations-pb-builders.test.ts, which applies
 * the same folder with svcbase and needs no oracle. The oracle: `pocketbase.sh` (else
 * `POCKETBASE_BIN`), served on `ORACLE_PORT` (default 8162).
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { format, resolveConfig } from 'prettier'
import { oracleCommand } from '../oracle.js'
import { copyFolder, HERE } from './folders.js'

const ORACLE_VERSION = 'PocketBase 0.40.4 (Debian build of the upstream source)'
const PORT = Number(process.env.ORACLE_PORT ?? 8162)

const dir = mkdtempSync(join(tmpdir(), 'svcbase-mig-builders-'))
for (const d of ['h', 'p']) mkdirSync(join(dir, d))
copyFolder('builders', join(dir, 'm'))
const [cmd, ...pre] = oracleCommand()
const proc = spawn(
  cmd!,
  [
    ...pre,
    'serve',
    '--dev=false',
    `--dir=${dir}/pb_data`,
    `--migrationsDir=${dir}/m`,
    `--hooksDir=${dir}/h`,
    `--publicDir=${dir}/p`,
    `--http=127.0.0.1:${PORT}`,
  ],
  { stdio: ['ignore', 'inherit', 'inherit'] },
)
try {
  let results: unknown
  for (let i = 0; i < 100 && results === undefined; i++) {
    await new Promise((r) => setTimeout(r, 200))
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/api/collections/results/records`)
      if (res.ok) results = ((await res.json()) as { items: { data: unknown }[] }).items[0]?.data
    } catch {
      // not up yet
    }
  }
  if (results === undefined) throw new Error('the oracle did not answer')
  const out = {
    oracle: ORACLE_VERSION,
    recorded: new Date().toISOString().slice(0, 10),
    results,
  }
  const text = await format(JSON.stringify(out), {
    ...(await resolveConfig(import.meta.filename)),
    parser: 'json',
  })
  writeFileSync(join(HERE, 'builders.json'), text)
  console.log('builders: recorded')
} finally {
  proc.kill()
  await new Promise((r) => proc.once('exit', r))
  rmSync(dir, { recursive: true, force: true })
}
