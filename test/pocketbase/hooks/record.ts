/**
 * Records PocketBase's answers to the `*.pb.js` suites of this folder (`cases.ts`) into
 * `<suite>.json`: each suite's files go into a fresh hooks dir of the real PocketBase 0.40.4
 * (`/work/shared/oracle/pocketbase.sh`, port 8111 or `ORACLE_PORT`), the cases run in order, the answers are kept.
 * The security suite adds cases made of values from both sides: an oracle cipher and JWT that
 * svcbase must read, and an svcbase cipher and JWT that PocketBase read (its answers recorded).
 *
 *   npx tsx test/pocketbase/hooks/record.ts [suite…]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { format, resolveConfig } from 'prettier'
import { security } from '../../../src/features/hooks/pb/security.js'
import { startSmtp } from '../../helpers/smtp.js'
import { ask, useSmtp } from './ask.js'
import {
  SECURITY_KEY,
  routesSuite,
  securitySuite,
  templateSuite,
  osSuite,
  eventsSuite,
  authSuite,
  mailsSuite,
  dbxSuite,
  SU,
  type HookAnswer,
  type HookCase,
  type HookRecording,
  type HookSuite,
} from './cases.js'
import { httpSuite } from './cases-http.js'
import { middlewareSuite } from './cases-middleware.js'
import { rankingSuite } from './cases-ranking.js'
import { lifecycleSuite } from './cases-lifecycle.js'
import { dbtplSuite } from './cases-dbtpl.js'
import { recordSuite } from './cases-record.js'
import { eventSuite } from './cases-event.js'
import { oracleCommand } from '../oracle.js'

/** PocketBase: `../shared/oracle/pocketbase.sh`, else `POCKETBASE_BIN` (see ../oracle.ts). */
const [ORACLE, ...ORACLE_ARGS] = oracleCommand() as [string, ...string[]]
const ORACLE_VERSION = 'PocketBase 0.40.4 (Debian build of the upstream source)'
/** The oracle's port (`ORACLE_PORT` overrides it, for engineers given other ports). */
const PORT = Number(process.env.ORACLE_PORT ?? 8111)
const here = dirname(fileURLToPath(import.meta.url))

async function startOracle(suite: HookSuite): Promise<{ proc: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), `pb-hooks-${suite.name}-`))
  for (const d of ['h', 'm', 'p']) mkdirSync(join(dir, d))
  for (const f of suite.files) {
    mkdirSync(dirname(join(dir, 'h', f)), { recursive: true })
    cpSync(join(here, f), join(dir, 'h', f))
  }
  // The superuser the test server has too (test/fixtures/hooks/server.ts), for `auth: SU` cases.
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
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${PORT}/api/health`)
      if (r.ok) return { proc, dir }
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  proc.kill()
  throw new Error('the oracle did not start')
}

/** The security cases made of values taken from either side. */
async function crossCases(base: string): Promise<HookCase[]> {
  const q = encodeURIComponent
  const oracleCipher = await (
    await fetch(`${base}/sec/encrypt?raw=1&data=${q('from PocketBase ✓')}&key=${SECURITY_KEY}`)
  ).text()
  const svcCipher = security.encrypt('from svcbase ✓', SECURITY_KEY)
  const oracleToken = await (await fetch(`${base}/sec/jwt/make?secs=315360000`)).text()
  const expiredToken = await (await fetch(`${base}/sec/jwt/make`)).text()
  const svcToken = security.createJWT(
    { sub: 'svc', n: 1, nested: { z: 1, a: [1, 'x'] } },
    'key-1',
    315360000,
  )
  const jwt = (token: string, key: string) => `/sec/jwt/fixed?token=${q(token)}&key=${q(key)}`
  return [
    {
      name: 'decrypt an oracle cipher',
      method: 'GET',
      path: `/sec/decrypt?cipher=${q(oracleCipher)}&key=${SECURITY_KEY}`,
    },
    {
      name: 'decrypt an svcbase cipher',
      method: 'GET',
      path: `/sec/decrypt?cipher=${q(svcCipher)}&key=${SECURITY_KEY}`,
    },
    {
      name: 'decrypt with another key',
      method: 'GET',
      path: `/sec/decrypt?cipher=${q(oracleCipher)}&key=${'x'.repeat(32)}`,
    },
    { name: 'jwt oracle verified', method: 'GET', path: jwt(oracleToken, 'key-1') },
    { name: 'jwt oracle unverified', method: 'GET', path: jwt(oracleToken, '') },
    { name: 'jwt oracle wrong key', method: 'GET', path: jwt(oracleToken, 'key-2') },
    { name: 'jwt oracle expired verified', method: 'GET', path: jwt(expiredToken, 'key-1') },
    { name: 'jwt oracle expired unverified', method: 'GET', path: jwt(expiredToken, '') },
    { name: 'jwt svcbase verified', method: 'GET', path: jwt(svcToken, 'key-1') },
    { name: 'jwt svcbase unverified', method: 'GET', path: jwt(svcToken, '') },
    { name: 'jwt svcbase wrong key', method: 'GET', path: jwt(svcToken, 'nope') },
    { name: 'jwt oracle token text', method: 'GET', path: `/sec/jwt/make?secs=-60`, random: true },
  ]
}

/** A JSON value with its object keys sorted (Go's maps come in random order). */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted)
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, sorted(o[k])]),
    )
  }
  return v
}

async function record(suite: HookSuite): Promise<void> {
  // A suite that needs a server of its own (cases-http.ts) starts it before the oracle.
  const teardown = 'setup' in suite ? await (suite as typeof httpSuite).setup() : null
  const { proc, dir } = await startOracle(suite)
  const base = `http://127.0.0.1:${PORT}`
  const smtp = suite.smtp ? await startSmtp() : undefined
  try {
    if (smtp) await useSmtp(base, smtp, SU)
    const cases = [...suite.cases]
    if (suite.name === 'security') cases.push(...(await crossCases(base)))
    const answers: HookAnswer[] = []
    for (const c of cases) {
      const answer = await ask(base, c, smtp)
      answers.push({ ...answer, body: sorted(answer.body) })
    }
    const out: HookRecording = {
      oracle: ORACLE_VERSION,
      recorded: new Date().toISOString().slice(0, 10),
      suite: suite.name,
      answers,
    }
    const text = await format(JSON.stringify(out), {
      ...(await resolveConfig(import.meta.filename)),
      parser: 'json',
    })
    writeFileSync(join(here, `${suite.name}.json`), text)
    console.log(`${suite.name}: ${answers.length} answers recorded`)
  } finally {
    await smtp?.close()
    proc.kill()
    await new Promise((r) => proc.once('exit', r))
    rmSync(dir, { recursive: true, force: true })
    await teardown?.()
  }
}

const suites = [
  routesSuite,
  securitySuite,
  templateSuite,
  osSuite,
  eventsSuite,
  authSuite,
  mailsSuite,
  dbxSuite,
  rankingSuite,
  lifecycleSuite,
  middlewareSuite,
  httpSuite,
  dbtplSuite,
  recordSuite,
  eventSuite,
]
const wanted = process.argv.slice(2)
for (const s of suites) if (wanted.length === 0 || wanted.includes(s.name)) await record(s)
