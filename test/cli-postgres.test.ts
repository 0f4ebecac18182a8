/**
 * The CLI on PostgreSQL (`SVC_TEST_PG_URL`, started by test/global-setup.ts): `--db` and
 * `--dbSchema` reach every command, so a superuser created by `svcbase superuser create` signs in
 * to `svcbase serve` on the same database and schema, whatever `--dir` each one gets.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { SVCBASE_READY } from '../bench/servers.js'

const CLI = ['--import', 'tsx', 'src/cli.ts']
const url = process.env.SVC_TEST_PG_URL ?? ''
const schema = `t_cli_${process.pid}_${Date.now().toString(36)}`
const root = mkdtempSync(join(tmpdir(), 'svcbase-cli-pg-'))
const children: ChildProcess[] = []

/** The environment of a child: no store chosen by the test pass, only by the flags. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.SVC_DATABASE_URL
  delete env.SVC_DATABASE_SCHEMA
  return env
}

afterAll(async () => {
  const live = children.filter((c) => c.exitCode === null && c.signalCode === null)
  const exits = live.map((c) => new Promise<void>((ok) => c.once('exit', () => ok())))
  for (const c of live) c.kill('SIGTERM')
  await Promise.all(exits)
  rmSync(root, { recursive: true, force: true })
  if (!url) return
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await client.query(`DROP SCHEMA IF EXISTS "${schema}_aux" CASCADE`)
  await client.end()
})

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...CLI, ...args], { env: childEnv() }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

/** Starts `svcbase serve ARGS`; resolves with its address once it listens. */
function serve(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [...CLI, 'serve', ...args], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  let err = ''
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = SVCBASE_READY.exec(out)
      if (m) resolve(m[1]!)
    })
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}\n${err}`)))
  })
}

describe('svcbase on PostgreSQL', () => {
  it('creates a superuser with --db and signs it in to serve --db from another folder', async () => {
    if (!url) throw new Error('SVC_TEST_PG_URL is not set: test/global-setup.ts starts PostgreSQL')
    const db = [`--db=${url}`, `--dbSchema=${schema}`]
    const created = await runCli([
      'superuser',
      'create',
      'ops@example.com',
      'pgpassword123',
      ...db,
      `--dir=${join(root, 'a')}`,
    ])
    expect(created.stderr).toBe('')
    expect(created.code).toBe(0)
    const address = await serve([...db, `--dir=${join(root, 'b')}`, '--http=127.0.0.1:0'])
    const res = await fetch(`${address}/api/collections/_superusers/auth-with-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity: 'ops@example.com', password: 'pgpassword123' }),
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { record: { email: string } }
    expect(body.record.email).toBe('ops@example.com')
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const rows = await client.query(`SELECT email FROM "${schema}"."_superusers" ORDER BY email`)
      expect(rows.rows).toEqual([{ email: 'ops@example.com' }])
    } finally {
      await client.end()
    }
  })

  it('refuses a database URL that is not PostgreSQL, at start', async () => {
    const bad = await runCli([
      'superuser',
      'create',
      'x@example.com',
      'pgpassword123',
      '--db=mysql://h/db',
      `--dir=${join(root, 'c')}`,
    ])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/postgres:\/\/ or postgresql:\/\//)
  })
})
