/**
 * `svcbase copy` (`src/cli/copy.ts`) as a child process, SQLite → PostgreSQL → SQLite on the test
 * PostgreSQL (`SVC_TEST_PG_URL`, started by test/global-setup.ts): a SQLite app with every field
 * type, a user, a superuser, encrypted settings and request logs is copied into a fresh schema;
 * `serve --db` answers the same records, sign-ins and settings; a second copy onto it is refused
 * and changes nothing; the copy back to an empty folder answers the same again. A copy that
 * fails (a view PostgreSQL cannot run) leaves the target empty.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { SVCBASE_READY } from '../bench/servers.js'

const CLI = ['--import', 'tsx', 'src/cli.ts']
const url = process.env.SVC_TEST_PG_URL ?? ''
const tag = `${process.pid}_${Date.now().toString(36)}`
const schema = `t_copy_${tag}`
const failSchema = `t_copyfail_${tag}`
const root = mkdtempSync(join(tmpdir(), 'svcbase-cli-copy-'))
const KEY = 'copy-test-settings-key-0123456789'
const children: ChildProcess[] = []

/** The environment of a child: the settings key, no store chosen by the test pass. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_ENCRYPTION_KEY: KEY }
  delete env.SVC_DATABASE_URL
  delete env.SVC_DATABASE_SCHEMA
  return env
}

async function pgQuery<T>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows as T[]
  } finally {
    await client.end()
  }
}

afterAll(async () => {
  const live = children.filter((c) => c.exitCode === null && c.signalCode === null)
  const exits = live.map((c) => new Promise<void>((ok) => c.once('exit', () => ok())))
  for (const c of live) c.kill('SIGTERM')
  await Promise.all(exits)
  rmSync(root, { recursive: true, force: true })
  if (!url) return
  for (const s of [schema, failSchema])
    await pgQuery(`DROP SCHEMA IF EXISTS "${s}" CASCADE; DROP SCHEMA IF EXISTS "${s}_aux" CASCADE`)
})

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...CLI, ...args], { env: childEnv() }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

interface Served {
  address: string
  stop(): Promise<void>
}

/** Starts `svcbase serve ARGS`; resolves once it listens. `stop` ends it (logs flushed). */
function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [...CLI, 'serve', '--http=127.0.0.1:0', ...args], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()))
  let out = ''
  let err = ''
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = SVCBASE_READY.exec(out)
      if (m)
        resolve({
          address: m[1]!,
          stop: async () => {
            child.kill('SIGTERM')
            await exited
          },
        })
    })
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}\n${err}`)))
  })
}

/** A JSON request; returns the status and the parsed body. */
async function api(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; form?: FormData } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {}
  if (opts.token) headers.authorization = opts.token
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: opts.form ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

async function signIn(base: string, collection: string, identity: string, password: string) {
  return api(base, 'POST', `/api/collections/${collection}/auth-with-password`, {
    body: { identity, password },
  })
}

/** What the checks compare: lists through the API, as a superuser sees them. */
async function snapshot(base: string, token: string) {
  const get = async (path: string) => {
    const res = await api(base, 'GET', path, { token })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }
  return {
    thingsByTitle: (await get('/api/collections/things/records?sort=title&perPage=200')).items,
    thingsDefault: (await get('/api/collections/things/records?perPage=200')).items,
    refs: (await get('/api/collections/refs/records?sort=name')).items,
    users: (await get('/api/collections/users/records?sort=email')).items,
    view: (await get('/api/collections/thing_titles/records?sort=title,id&perPage=200')).items,
    collections: (await get('/api/collections?perPage=200&sort=name')).items.map(
      (c: Record<string, unknown>) => ({ id: c.id, name: c.name, type: c.type, fields: c.fields }),
    ),
    appName: (await get('/api/settings')).meta.appName,
  }
}

/** Builds the SQLite app the copy starts from; returns what its API answered. */
async function seedSqliteApp(dir: string) {
  const created = await runCli([
    'superuser',
    'create',
    'ops@example.com',
    'superpass123',
    `--dir=${dir}`,
  ])
  expect(created.code, created.stderr).toBe(0)
  const server = await serve([`--dir=${dir}`])
  const base = server.address
  const su = await signIn(base, '_superusers', 'ops@example.com', 'superpass123')
  expect(su.status).toBe(200)
  const token = su.body.token as string
  const refs = await api(base, 'POST', '/api/collections', {
    token,
    body: { name: 'refs', type: 'base', schema: [{ name: 'name', type: 'text' }] },
  })
  expect(refs.status, JSON.stringify(refs.body)).toBe(200)
  const things = await api(base, 'POST', '/api/collections', {
    token,
    body: {
      name: 'things',
      type: 'base',
      listRule: '',
      viewRule: '',
      schema: [
        { name: 'title', type: 'text' },
        { name: 'count', type: 'number' },
        { name: 'done', type: 'bool' },
        { name: 'meta', type: 'json' },
        { name: 'labels', type: 'select', options: { values: ['a', 'b', 'c'], maxSelect: 3 } },
        { name: 'links', type: 'relation', options: { collectionId: refs.body.id, maxSelect: 5 } },
        { name: 'doc', type: 'file', options: { maxSelect: 1 } },
        { name: 'due', type: 'date' },
        { name: 'stamp', type: 'autodate', onCreate: true, onUpdate: true },
        { name: 'embedding', type: 'vector', options: { dimensions: 3 } },
      ],
      indexes: ['CREATE INDEX idx_things_title ON things (title)'],
    },
  })
  expect(things.status, JSON.stringify(things.body)).toBe(200)
  const view = await api(base, 'POST', '/api/collections', {
    token,
    body: { name: 'thing_titles', type: 'view', viewQuery: 'SELECT id, title FROM things' },
  })
  expect(view.status, JSON.stringify(view.body)).toBe(200)
  const refIds: string[] = []
  for (const name of ['r1', 'r2', 'r3']) {
    const r = await api(base, 'POST', '/api/collections/refs/records', { token, body: { name } })
    expect(r.status).toBe(200)
    refIds.push(r.body.id)
  }
  for (let i = 0; i < 30; i++) {
    const r = await api(base, 'POST', '/api/collections/things/records', {
      token,
      body: {
        // Repeated titles: equal under the sort, so their order is the insertion order.
        title: i % 7 === 0 ? `same "quoted" ü ${i % 2}` : `thing ${String(i).padStart(2, '0')}`,
        count: i % 3 === 0 ? i + 0.25 : -i * 1000,
        done: i % 2 === 0,
        meta: i % 4 === 0 ? null : { zeta: i, alpha: [i, 'x', { deep: true }], 'k-ey': 'v' },
        labels: i % 5 === 0 ? [] : ['c', 'a'],
        links: refIds.slice(0, i % 4),
        due: i % 3 === 0 ? '' : `2024-0${(i % 9) + 1}-15 10:00:00.000Z`,
        embedding: i % 6 === 0 ? null : [i / 10, -1.5, 2],
      },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
  }
  const form = new FormData()
  form.append('title', 'with a file')
  form.append('doc', new Blob(['hello file']), 'note.txt')
  const withFile = await api(base, 'POST', '/api/collections/things/records', { token, form })
  expect(withFile.status, JSON.stringify(withFile.body)).toBe(200)
  expect(withFile.body.doc).toMatch(/^note_\w+\.txt$/)
  const user = await api(base, 'POST', '/api/collections/users/records', {
    body: {
      email: 'user@example.com',
      password: 'userpass1234',
      passwordConfirm: 'userpass1234',
      name: 'User Ü',
    },
  })
  expect(user.status, JSON.stringify(user.body)).toBe(200)
  const settings = await api(base, 'PATCH', '/api/settings', {
    token,
    body: { meta: { appName: 'Copied app' } },
  })
  expect(settings.status, JSON.stringify(settings.body)).toBe(200)
  const bulk = await api(base, 'POST', '/api/collections', {
    token,
    body: {
      name: 'bulk',
      type: 'base',
      listRule: '',
      schema: [
        { name: 'n', type: 'number' },
        { name: 'flag', type: 'bool' },
      ],
    },
  })
  expect(bulk.status, JSON.stringify(bulk.body)).toBe(200)
  const before = await snapshot(base, token)
  await server.stop()
  // More rows than one page of the copy, written straight into the file: ids in reverse order
  // and one `created` for all, so only the insertion order tells them apart.
  const db = new Database(join(dir, 'data.db'))
  const insert = db.prepare(
    "INSERT INTO bulk (id, n, flag, created, updated) VALUES (?, ?, ?, '2024-01-01 00:00:00.000Z', '2024-01-01 00:00:00.000Z')",
  )
  db.transaction(() => {
    for (const row of bulkRows) insert.run(row.id, row.n, row.flag ? 1 : 0)
  })()
  db.close()
  return before
}

/** The rows of `bulk`, in insertion order. */
const bulkRows = Array.from({ length: 2500 }, (_, i) => ({
  id: `b${String(2500 - i).padStart(14, '0')}`,
  n: i * 1.5,
  flag: i % 3 === 0,
}))

/** The answers about `bulk`: a page by `n`, and one in the default order (`-created`, ties by row order). */
async function bulkAnswers(base: string) {
  const pick = (items: Record<string, unknown>[]) =>
    items.map((r) => ({ id: r.id, n: r.n, flag: r.flag }))
  const byN = await api(base, 'GET', '/api/collections/bulk/records?sort=n&perPage=500&page=4')
  const byDefault = await api(base, 'GET', '/api/collections/bulk/records?perPage=500&page=3')
  expect(byN.status).toBe(200)
  expect(byDefault.status).toBe(200)
  return {
    total: byN.body.totalItems,
    byN: pick(byN.body.items),
    byDefault: pick(byDefault.body.items),
  }
}

function sqliteLogs(dir: string): number {
  const db = new Database(join(dir, 'auxiliary.db'), { readonly: true })
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM _logs').get() as { n: number }).n
  } finally {
    db.close()
  }
}

/** Signs in both accounts on a served copy and takes its snapshot. */
async function checkServed(args: string[]) {
  const server = await serve(args)
  try {
    const su = await signIn(server.address, '_superusers', 'ops@example.com', 'superpass123')
    expect(su.status).toBe(200)
    const user = await signIn(server.address, 'users', 'user@example.com', 'userpass1234')
    expect(user.status).toBe(200)
    expect(user.body.record.name).toBe('User Ü')
    const wrong = await signIn(server.address, 'users', 'user@example.com', 'not-the-password')
    expect(wrong.status).toBe(400)
    return {
      ...(await snapshot(server.address, su.body.token as string)),
      bulk: await bulkAnswers(server.address),
    }
  } finally {
    await server.stop()
  }
}

describe('svcbase copy', () => {
  it('copies a SQLite app to PostgreSQL, refuses a non-empty target, and copies it back', async () => {
    if (!url) throw new Error('SVC_TEST_PG_URL is not set: test/global-setup.ts starts PostgreSQL')
    const source = join(root, 'source')
    const before = await seedSqliteApp(source)
    expect(before.thingsByTitle).toHaveLength(31)
    const logs = sqliteLogs(source)
    expect(logs).toBeGreaterThan(0)

    const copied = await runCli(['copy', `--from=${source}`, `--to=${url}`, `--toSchema=${schema}`])
    expect(copied.code, copied.stderr).toBe(0)
    expect(copied.stderr).toMatch(/^things: 31 rows$/m)
    expect(copied.stderr).toMatch(/^bulk: 2500 rows$/m)
    expect(copied.stderr).toMatch(/^_superusers: 1 rows$/m)
    expect(copied.stderr).toMatch(/^_params: \d+ rows$/m)
    expect(copied.stdout).toMatch(/^copied \d+ collections, \d+ records/)
    const pgLogs = await pgQuery<{ n: string }>(`SELECT COUNT(*) AS n FROM "${schema}_aux"."_logs"`)
    expect(Number(pgLogs[0]!.n)).toBe(logs)
    // The settings stay encrypted as they were stored.
    const stored = await pgQuery<{ value: unknown }>(
      `SELECT value FROM "${schema}"."_params" WHERE id = 'settings'`,
    )
    expect(typeof stored[0]!.value).toBe('string')
    expect(JSON.stringify(stored[0]!.value)).not.toContain('Copied app')

    const onPg = await checkServed([
      `--db=${url}`,
      `--dbSchema=${schema}`,
      `--dir=${join(root, 'b')}`,
    ])
    const bulk = {
      total: bulkRows.length,
      byN: bulkRows.slice(1500, 2000),
      // `-created`, ties newest first: the reverse of the insertion order.
      byDefault: [...bulkRows].reverse().slice(1000, 1500),
    }
    expect(onPg).toEqual({ ...before, bulk })

    const count = `SELECT (SELECT COUNT(*) FROM "${schema}"."things") AS things, (SELECT COUNT(*) FROM "${schema}"."_collections") AS collections, (SELECT MAX(updated) FROM "${schema}"."_params") AS params`
    const untouched = await pgQuery(count)
    const again = await runCli(['copy', `--from=${source}`, `--to=${url}`, `--toSchema=${schema}`])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/already holds svcbase data/)
    expect(await pgQuery(count)).toEqual(untouched)

    const back = join(root, 'back')
    const returned = await runCli([
      'copy',
      `--from=${url}`,
      `--fromSchema=${schema}`,
      `--to=${back}`,
    ])
    expect(returned.code, returned.stderr).toBe(0)
    expect(sqliteLogs(back)).toBeGreaterThanOrEqual(logs)
    const onSqlite = await checkServed([`--dir=${back}`])
    expect(onSqlite).toEqual({ ...before, bulk })
  }, 120_000)

  it('leaves the target empty when the copy fails', async () => {
    if (!url) throw new Error('SVC_TEST_PG_URL is not set: test/global-setup.ts starts PostgreSQL')
    const source = join(root, 'fails')
    mkdirSync(source)
    const server = await serve([`--dir=${source}`])
    const created = await runCli([
      'superuser',
      'create',
      'ops@example.com',
      'superpass123',
      `--dir=${source}`,
    ])
    expect(created.code, created.stderr).toBe(0)
    const su = await signIn(server.address, '_superusers', 'ops@example.com', 'superpass123')
    const token = su.body.token as string
    const things = await api(server.address, 'POST', '/api/collections', {
      token,
      body: { name: 'things', type: 'base', schema: [{ name: 'meta', type: 'json' }] },
    })
    expect(things.status).toBe(200)
    // SQLite's json_extract: PostgreSQL has no such function, so the view cannot be made there.
    const view = await api(server.address, 'POST', '/api/collections', {
      token,
      body: {
        name: 'sqliteonly',
        type: 'view',
        viewQuery: "SELECT id, json_extract(meta, '$.a') AS a FROM things",
      },
    })
    expect(view.status, JSON.stringify(view.body)).toBe(200)
    await server.stop()

    const res = await runCli([
      'copy',
      `--from=${source}`,
      `--to=${url}`,
      `--toSchema=${failSchema}`,
    ])
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/copy failed, the target was left empty/)
    expect(res.stderr).toMatch(/sqliteonly/)
    const rows = await pgQuery<{ n: string }>(
      `SELECT (SELECT COUNT(*) FROM "${failSchema}"."_collections") + (SELECT COUNT(*) FROM "${failSchema}"."_params") AS n`,
    )
    expect(Number(rows[0]!.n)).toBe(0)
    const tables = await pgQuery<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema IN ('${failSchema}', '${failSchema}_aux') AND table_name IN ('things', 'sqliteonly', '_superusers', 'users', '_logs')`,
    )
    expect(tables).toEqual([])
    // Empty again, so the copy can run once the view is fixed.
    const retry = await runCli([
      'copy',
      `--from=${source}`,
      `--to=${url}`,
      `--toSchema=${failSchema}`,
    ])
    expect(retry.stderr).not.toMatch(/already holds svcbase data/)
  }, 60_000)

  it('refuses bad command lines with the usage', async () => {
    const none = await runCli(['copy', '--to=/tmp/x'])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/copy needs --from/)
    const dir = await runCli(['copy', '--from=a', '--to=b', '--dir=c'])
    expect(dir.code).toBe(2)
    const stray = await runCli(['serve', '--from=a'])
    expect(stray.code).toBe(2)
    expect(stray.stderr).toMatch(/--from belongs to copy/)
    const missing = await runCli([
      'copy',
      `--from=${join(root, 'nowhere')}`,
      `--to=${join(root, 'x')}`,
    ])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/does not exist/)
  })
})
