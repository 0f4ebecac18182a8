/**
 * `tsx test/pocketbase/migrations/record.ts`: records what PocketBase 0.40.4 makes of the
 * migration folders beside this file into `expected.json`, for test/migrations-pb.test.ts (which
 * applies the same folders with svcbase and needs no oracle):
 *
 * - `folder/`: applied with `migrate up` on a scratch app, then served (127.0.0.1:8122) and read
 *   through the API: the collections it made, their records, the app name it set, and the
 *   `_migrations` rows of its files;
 * - `failing/` and `legacy/` (a pre-0.23 `Dao` file): `migrate up` fails; the error line (the
 *   scratch path as `<dir>`), the exit status, and what was kept (nothing).
 *
 * The oracle: `../shared/oracle/pocketbase.sh` (else `POCKETBASE_BIN`).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { oracleCommand } from '../oracle.js'
import { ORACLE_VERSION, SUPERUSER } from '../harness.js'
import { readdirSync, readFileSync } from 'node:fs'
import {
  AUTOMIGRATE_STEPS,
  COLLECTIONS,
  copyFolder,
  HERE,
  withoutTime,
  type GeneratedFile,
} from './folders.js'

const PORT = 8122

type Json = Record<string, unknown>

const [cmd, ...pre] = oracleCommand()

function run(args: string[], input = ''): { status: number | null; out: string } {
  const r = spawnSync(cmd!, [...pre, ...args], { encoding: 'utf8', input })
  return { status: r.status, out: `${r.stdout}${r.stderr}` }
}

/** A scratch app folder with `name`'s files as its `m/` migrations. */
function scratch(name: string): { dir: string; data: string; migrations: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-mig-oracle-'))
  const migrations = join(dir, 'm')
  copyFolder(name, migrations)
  return { dir, data: join(dir, 'pb_data'), migrations }
}

/** The `_migrations` rows of migration files (not PocketBase's own `.go` ones). */
function fileRows(data: string): string[] {
  const db = new Database(join(data, 'data.db'), { readonly: true })
  try {
    const rows = db.prepare(`SELECT file FROM _migrations ORDER BY file`).all() as {
      file: string
    }[]
    return rows.map((r) => r.file).filter((f) => !f.endsWith('.go'))
  } finally {
    db.close()
  }
}

/** The non-system collection names of an oracle's data.db. */
function userCollections(data: string): string[] {
  const db = new Database(join(data, 'data.db'), { readonly: true })
  try {
    const rows = db.prepare(`SELECT name FROM _collections WHERE system = 0 ORDER BY name`).all()
    return (rows as { name: string }[]).map((r) => r.name)
  } finally {
    db.close()
  }
}

async function served<T>(
  data: string,
  fn: (api: (p: string, method?: string, body?: unknown) => Promise<unknown>) => Promise<T>,
  port = PORT,
) {
  execFileSync(cmd!, [
    ...pre,
    'superuser',
    'upsert',
    SUPERUSER.email,
    SUPERUSER.password,
    `--dir=${data}`,
  ])
  const base = join(data, '..')
  const dirs = ['m', 'h', 'p'].map((d) => {
    mkdirSync(join(base, d), { recursive: true })
    return join(base, d)
  })
  const child = spawn(
    cmd!,
    [
      ...pre,
      'serve',
      '--dev=false',
      `--dir=${data}`,
      `--migrationsDir=${dirs[0]}`,
      `--hooksDir=${dirs[1]}`,
      `--publicDir=${dirs[2]}`,
      `--http=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  )
  try {
    const url = `http://127.0.0.1:${port}`
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${url}/api/health`)).ok) break
      } catch {
        if (i > 100) throw new Error('the oracle did not start')
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    const login = (await (
      await fetch(`${url}/api/collections/_superusers/auth-with-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identity: SUPERUSER.email, password: SUPERUSER.password }),
      })
    ).json()) as { token: string }
    const api = async (path: string, method = 'GET', body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: login.token, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await res.text()
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
      return text === '' ? null : (JSON.parse(text) as unknown)
    }
    return await fn(api)
  } finally {
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
  }
}

async function main(): Promise<void> {
  const s = scratch('folder')
  const up = run([
    'migrate',
    'up',
    '--dev=false',
    `--dir=${s.data}`,
    `--migrationsDir=${s.migrations}`,
  ])
  if (up.status !== 0) throw new Error(`migrate up failed on the oracle: ${up.out}`)
  const folder = await served(s.data, async (api) => {
    const collections: Record<string, unknown> = {}
    const records: Record<string, unknown> = {}
    for (const [name, sort] of Object.entries(COLLECTIONS)) {
      collections[name] = await api(`/api/collections/${name}`)
      records[name] = (
        (await api(`/api/collections/${name}/records?sort=${sort}`)) as {
          items: unknown[]
        }
      ).items
    }
    const settings = (await api('/api/settings')) as { meta: { appName: string } }
    return { collections, records, appName: settings.meta.appName }
  })
  const result = {
    oracle: ORACLE_VERSION,
    recorded: new Date().toISOString().slice(0, 10),
    folder: {
      output: up.out.trim().split('\n'),
      userCollections: userCollections(s.data),
      migrations: fileRows(s.data),
      ...folder,
    },
    failures: {} as Record<string, unknown>,
  }
  // PocketBase's `migrate collections` snapshot of that app (answering its question with y).
  const snap = join(s.dir, 'snapshot')
  const made = run(
    ['migrate', 'collections', '--dev=false', `--dir=${s.data}`, `--migrationsDir=${snap}`],
    'y\n',
  )
  if (made.status !== 0) throw new Error(`migrate collections failed on the oracle: ${made.out}`)
  const [snapFile] = readdirSync(snap)
  Object.assign(result, {
    snapshot: { name: withoutTime(snapFile!), text: readFileSync(join(snap, snapFile!), 'utf8') },
  })
  rmSync(s.dir, { recursive: true, force: true })
  // How app calls behave (errors caught, reads after writes), noted as records of `probe`.
  const sem = scratch('semantics')
  const semUp = run([
    'migrate',
    'up',
    '--dev=false',
    `--dir=${sem.data}`,
    `--migrationsDir=${sem.migrations}`,
  ])
  if (semUp.status !== 0) throw new Error(`migrate up failed on the oracle: ${semUp.out}`)
  const probe = await served(sem.data, async (api) =>
    (
      (await api('/api/collections/probe/records?perPage=100&sort=key')) as { items: Json[] }
    ).items.map((r) => [r.key, r.value]),
  )
  Object.assign(result, { semantics: probe })
  rmSync(sem.dir, { recursive: true, force: true })
  for (const name of ['failing', 'legacy', 'invalid', 'invalid-settings', 'invalid-field']) {
    const f = scratch(name)
    const r = run([
      'migrate',
      'up',
      '--dev=false',
      `--dir=${f.data}`,
      `--migrationsDir=${f.migrations}`,
    ])
    result.failures[name] = {
      status: r.status,
      // Go's log prefix (date and time) and the scratch folder left out.
      error: r.out
        .trim()
        .replace(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /, '')
        .replaceAll(f.dir, '<dir>'),
      migrations: fileRows(f.data),
      userCollections: userCollections(f.data),
    }
    rmSync(f.dir, { recursive: true, force: true })
  }
  // --automigrate (PocketBase's default): the files the collections API calls write.
  const a = scratch('failing')
  for (const f of readdirSync(a.migrations)) rmSync(join(a.migrations, f))
  await served(
    a.data,
    async (api) => {
      for (const step of AUTOMIGRATE_STEPS) {
        await api(step.path, step.method, step.body)
        // One file per second at most: PocketBase names them by the second.
        await new Promise((r) => setTimeout(r, 1100))
      }
    },
    PORT + 1,
  )
  const generated: GeneratedFile[] = readdirSync(join(a.dir, 'm'))
    .sort()
    .map((f) => ({ name: withoutTime(f), text: readFileSync(join(a.dir, 'm', f), 'utf8') }))
  Object.assign(result, {
    automigrate: { files: generated, migrations: fileRows(a.data).map(withoutTime) },
  })
  rmSync(a.dir, { recursive: true, force: true })
  writeFileSync(join(HERE, 'expected.json'), `${JSON.stringify(result, null, 2)}\n`)
  console.log(`recorded ${join(HERE, 'expected.json')} (${ORACLE_VERSION})`)
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
