/**
 * Records PocketBase's answers to the `featurehooks` suite (`cases-featurehooks.ts`) into
 * `featurehooks.json`: `featurehooks.pb.js` goes into a fresh hooks dir of the real PocketBase
 * 0.40.4 (`/work/shared/oracle/pocketbase.sh`, port 8151 or `ORACLE_PORT`), the steps run in
 * order (uploads, downloads and a realtime client among them), the answers are kept. Its own
 * script, not a suite of `record.ts`: its steps are more than the requests `ask.ts` sends.
 *
 *   ORACLE_PORT=8151 npx tsx test/pocketbase/hooks/record-featurehooks.ts
 */
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { format, resolveConfig } from 'prettier'
import { SU } from './cases.js'
import {
  featureHooksSteps,
  type FeatureAnswer,
  type FeatureContext,
  type FeatureRecording,
} from './cases-featurehooks.js'
import { runStep } from './run-featurehooks.js'
import { oracleCommand } from '../oracle.js'

/** PocketBase: `../shared/oracle/pocketbase.sh`, else `POCKETBASE_BIN` (see ../oracle.ts). */
const [ORACLE, ...ORACLE_ARGS] = oracleCommand() as [string, ...string[]]
const ORACLE_VERSION = 'PocketBase 0.40.4 (Debian build of the upstream source)'
const PORT = Number(process.env.ORACLE_PORT ?? 8151)
const here = dirname(fileURLToPath(import.meta.url))

const dir = mkdtempSync(join(tmpdir(), 'pb-hooks-featurehooks-'))
for (const d of ['h', 'm', 'p']) mkdirSync(join(dir, d))
cpSync(join(here, 'featurehooks.pb.js'), join(dir, 'h', 'featurehooks.pb.js'))
execFileSync(
  ORACLE,
  [...ORACLE_ARGS, 'superuser', 'upsert', SU.identity, SU.password, `--dir=${dir}/pb_data`],
  {
    stdio: 'ignore',
  },
)
const proc = spawn(
  ORACLE,
  [
    ...ORACLE_ARGS,
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
const base = `http://127.0.0.1:${PORT}`
try {
  let up = false
  for (let i = 0; i < 100 && !up; i++) {
    up = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (!up) await new Promise((r) => setTimeout(r, 200))
  }
  if (!up) throw new Error('the oracle did not start')
  const ctx: FeatureContext = { records: {} }
  const answers: FeatureAnswer[] = []
  for (const step of featureHooksSteps) answers.push(await runStep(base, step, ctx))
  const out: FeatureRecording = {
    oracle: ORACLE_VERSION,
    recorded: new Date().toISOString().slice(0, 10),
    suite: 'featurehooks',
    answers,
  }
  const text = await format(JSON.stringify(out), {
    ...(await resolveConfig(import.meta.filename)),
    parser: 'json',
  })
  writeFileSync(join(here, 'featurehooks.json'), text)
  console.log(`featurehooks: ${answers.length} answers recorded`)
} finally {
  proc.kill()
  await new Promise((r) => proc.once('exit', r))
  rmSync(dir, { recursive: true, force: true })
}
