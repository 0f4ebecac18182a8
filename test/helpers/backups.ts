/** Helpers of the backups tests: data to back up, archives made by hand, downloads. */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import yazl from 'yazl'
import type { TestServer } from './server.js'

/** Creates a public `posts` collection (title text) and `n` posts `p1`…`pn`; returns the ids. */
export async function seedPosts(t: TestServer, n: number, collection = 'posts'): Promise<string[]> {
  const created = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: {
      name: collection,
      type: 'base',
      listRule: '',
      viewRule: '',
      createRule: '',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'doc', type: 'file', maxSelect: 1, maxSize: 1_000_000 },
      ],
    },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  const ids: string[] = []
  for (let i = 1; i <= n; i++) {
    const res = await t.api('POST', `/api/collections/${collection}/records`, {
      body: { title: `p${i}` },
    })
    expect(res.status).toBe(200)
    ids.push(res.body.id as string)
  }
  return ids
}

/** The titles of a collection's records, sorted. */
export async function titles(t: TestServer, collection = 'posts'): Promise<string[]> {
  const res = await t.api('GET', `/api/collections/${collection}/records?perPage=500`, {
    token: t.suToken,
  })
  expect(res.status).toBe(200)
  return (res.body.items as { title: string }[]).map((r) => r.title).sort()
}

/** A superuser file token (`POST /api/files/token`). */
export async function fileToken(t: TestServer, token = t.suToken): Promise<string> {
  const res = await t.api('POST', '/api/files/token', { token })
  expect(res.status).toBe(200)
  return res.body.token as string
}

/** Downloads a backup with a fresh superuser file token; returns the bytes. */
export async function download(t: TestServer, key: string): Promise<Buffer> {
  const token = await fileToken(t)
  const res = await fetch(`${t.url}/api/backups/${encodeURIComponent(key)}?token=${token}`)
  expect(res.status).toBe(200)
  return Buffer.from(await res.arrayBuffer())
}

/** An entry of a hand-made archive; `mode` sets the Unix mode (`0o120777` makes a symlink). */
export interface ZipEntry {
  name: string
  data?: Buffer | string
  mode?: number
  compress?: boolean
}

/** A placeholder name of `length` letters that occurs nowhere else in the archive. */
function placeholder(length: number, i: number): string {
  return `${'Qz'.repeat(length)}`.slice(0, length - 3) + String(100 + i)
}

/**
 * Builds a ZIP in memory from entries (small test archives only). Names yazl refuses (`..`,
 * absolute, backslashes) are written as placeholders of the same length, then patched in the
 * local headers and the central directory, as a hostile tool would write them.
 */
export async function makeZip(entries: ZipEntry[]): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  const patches: [string, string][] = []
  entries.forEach((e, i) => {
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data ?? '')
    let name = e.name
    if (name.includes('..') || name.startsWith('/') || name.includes('\\')) {
      const stand = placeholder(name.length, i)
      patches.push([stand, name])
      name = stand
    }
    zip.addBuffer(data, name, { mode: e.mode, compress: e.compress ?? true })
  })
  zip.end()
  const chunks: Buffer[] = []
  const out = await new Promise<Buffer>((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c))
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
    zip.outputStream.on('error', reject)
  })
  for (const [stand, real] of patches) {
    const from = Buffer.from(stand)
    const to = Buffer.from(real)
    let at = out.indexOf(from)
    expect(at).toBeGreaterThanOrEqual(0)
    while (at >= 0) {
      to.copy(out, at)
      at = out.indexOf(from, at + 1)
    }
  }
  return out
}

/** Uploads `data` as a backup archive named `name`. */
export function upload(t: TestServer, name: string, data: Buffer, token = t.suToken) {
  const form = new FormData()
  form.append('file', new Blob([data], { type: 'application/zip' }), name)
  return t.api('POST', '/api/backups/upload', { token, raw: form })
}

/** Runs Debian's `unzip -t` on an archive written to `dir`; returns its output. */
export function unzipTest(dir: string, data: Buffer, name = 'check.zip'): string {
  const path = join(dir, name)
  writeFileSync(path, data)
  return execFileSync('unzip', ['-t', path], { encoding: 'utf8' })
}

/** Extracts an archive with Debian's `unzip` into `target`. */
export function unzipTo(dir: string, data: Buffer, target: string): void {
  const path = join(dir, 'extract.zip')
  writeFileSync(path, data)
  execFileSync('unzip', ['-q', '-o', path, '-d', target])
}

/** True when the test apps run on PostgreSQL (the PostgreSQL pass sets `SVC_DATABASE_URL`). */
export const onPostgres = Boolean(process.env.SVC_DATABASE_URL)

/** The database files of a backup taken on this run's engine. */
export const dbFiles = onPostgres
  ? { main: 'data.pgdump', auxiliary: 'auxiliary.pgdump' }
  : { main: 'data.db', auxiliary: 'auxiliary.db' }

/**
 * Checks one database file of an extracted backup with the engine's own tool: `PRAGMA
 * integrity_check` of the sqlite3 CLI, or `pg_restore --list` (which reads the whole table of
 * contents of a dump). Answers 'ok' when it passes.
 */
export function checkDbFile(file: string): string {
  if (!onPostgres) return sqlite3(file, 'PRAGMA integrity_check')
  execFileSync('pg_restore', ['--list', file], { encoding: 'utf8' })
  return 'ok'
}

/** Scratch databases made by `queryBackup` (one per dump), dropped by `dropScratchDatabases`. */
const scratch = new Map<string, { url: string; schema: string; name: string }>()

/** The URL of another database of the test server. */
function databaseUrl(name: string): string {
  const u = new URL(process.env.SVC_DATABASE_URL!)
  u.pathname = `/${name}`
  return u.toString()
}

/**
 * Runs one statement on the main database of an extracted backup with the engine's own tools
 * and returns its output as the sqlite3 CLI prints it (`a|b` lines), trimmed. On PostgreSQL the
 * dump is restored by `pg_restore` into a scratch database first (once per file).
 */
export function queryBackup(file: string, statement: string): string {
  if (!onPostgres) return sqlite3(file, statement)
  let db = scratch.get(file)
  if (!db) {
    const name = `svc_check_${Math.random().toString(36).slice(2, 10)}`
    const listing = execFileSync('pg_restore', ['--list', file], { encoding: 'utf8' })
    const schema = /^\d+; \d+ \d+ SCHEMA - (\S+) /m.exec(listing)?.[1] ?? 'public'
    execFileSync('psql', [process.env.SVC_DATABASE_URL!, '-qc', `CREATE DATABASE ${name}`])
    db = { url: databaseUrl(name), schema, name }
    scratch.set(file, db)
    execFileSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${db.url}`, file])
  }
  const text = `SET search_path TO "${db.schema}"; ${statement}`
  return execFileSync('psql', [db.url, '-Atqc', text], { encoding: 'utf8' }).trim()
}

/**
 * Changes the main database file of an extracted backup in place with the engine's own tools
 * (PostgreSQL: restored into a scratch database, changed, dumped again over the file).
 */
export function alterBackup(file: string, statement: string): void {
  if (!onPostgres) {
    sqlite3(file, statement)
    return
  }
  queryBackup(file, statement)
  const db = scratch.get(file)!
  scratch.delete(file)
  execFileSync('pg_dump', [
    '--format=custom',
    `--schema="${db.schema}"`,
    '--no-owner',
    `--file=${file}`,
    db.url,
  ])
  const drop = `DROP DATABASE IF EXISTS ${db.name} WITH (FORCE)`
  execFileSync('psql', [process.env.SVC_DATABASE_URL!, '-qc', drop])
}

/** Drops the scratch databases of `queryBackup`. */
export function dropScratchDatabases(): void {
  for (const db of scratch.values()) {
    const drop = `DROP DATABASE IF EXISTS ${db.name} WITH (FORCE)`
    execFileSync('psql', [process.env.SVC_DATABASE_URL!, '-qc', drop])
  }
  scratch.clear()
}

/** Runs one statement with the `sqlite3` CLI on a database file; returns its output, trimmed. */
export function sqlite3(file: string, statement: string): string {
  return execFileSync('sqlite3', [file, statement], { encoding: 'utf8' }).trim()
}

/** Waits until `check` is true (polling), or fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 50))
  }
}
