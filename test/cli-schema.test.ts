/**
 * `svcbase schema export|diff|apply` and `serve --automigrate`, run as child processes on real
 * data folders: the round trip of a schema kept in a file.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { onPostgres, otherConnection, type OtherConnection } from './helpers/other-connection.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/core/create-app.js'
import { silentLogger } from '../src/core/logger.js'
import { SVCBASE_READY } from '../bench/servers.js'

/** The CLI from its sources, runnable from any working directory. */
const CLI = [
  '--import',
  pathToFileURL(resolve('node_modules/tsx/dist/loader.mjs')).href,
  resolve('src/cli.ts'),
]
const root = mkdtempSync(join(tmpdir(), 'svcbase-cli-schema-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const dirA = join(root, 'a')
const dirB = join(root, 'b')
const file = join(root, 'schema.json')

interface Result {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the CLI to its end; never rejects (the exit code is in the result). */
function run(args: string[], cwd = root): Promise<Result> {
  return new Promise((done) => {
    execFile(process.execPath, [...CLI, ...args], { cwd }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      done({ code, stdout, stderr })
    })
  })
}

const running: ChildProcess[] = []
afterEach(async () => {
  await Promise.all(
    running.splice(0).map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done()
          child.once('exit', () => done())
          child.kill('SIGTERM')
        }),
    ),
  )
})

/** `svcbase serve ARGS` in `cwd`: resolves with its URL and output once it listens, or its exit. */
function serve(
  args: string[],
  cwd: string,
): Promise<{ url: string | null; code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [...CLI, 'serve', '--http=127.0.0.1:0', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.push(child)
  let out = ''
  let err = ''
  return new Promise((done) => {
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = SVCBASE_READY.exec(out)
      if (m) done({ url: m[1]!, code: null, out, err })
    })
    child.once('exit', (code) => done({ url: null, code, out, err }))
  })
}

/** The column names of a collection's table in a data folder (an independent reader). */
async function columns(dir: string, table: string): Promise<string[]> {
  const db = await otherConnection(dir)
  try {
    const rows = await db.all<{ name: string }>(
      onPostgres
        ? 'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position'
        : `SELECT name FROM pragma_table_info(?) ORDER BY cid`,
      [table],
    )
    // PostgreSQL's tables carry `_rowid_`, the store's insertion order (what SQLite's rowid is).
    return rows.map((c) => c.name).filter((n) => !(onPostgres && n === '_rowid_'))
  } finally {
    await db.close()
  }
}

/** Runs `fn` on another connection to the data folder's main database. */
async function direct<T>(dir: string, fn: (db: OtherConnection) => Promise<T>): Promise<T> {
  const db = await otherConnection(dir)
  try {
    return await fn(db)
  } finally {
    await db.close()
  }
}

type Payload = { collections: Record<string, any>[] }
const readPayload = (): Payload => JSON.parse(readFileSync(file, 'utf8')) as Payload

beforeAll(async () => {
  // Data folder A: a schema built through the collection service, as an operator would.
  const app = await createApp({ dataDir: dirA, logger: silentLogger })
  try {
    const authors = await app.collections.create({
      name: 'authors',
      type: 'auth',
      listRule: '',
      schema: [{ name: 'nickname', type: 'text' }],
    })
    await app.collections.create({
      name: 'books',
      type: 'base',
      listRule: '',
      viewRule: '',
      indexes: ['CREATE INDEX idx_books_title ON books (title)'],
      schema: [
        { name: 'title', type: 'text', required: true, options: { max: 200 } },
        { name: 'legacy', type: 'text' },
        { name: 'author', type: 'relation', options: { collectionId: authors.id, maxSelect: 1 } },
      ],
    })
    await app.collections.create({
      name: 'book_titles',
      type: 'view',
      listRule: '',
      viewQuery: 'SELECT id, title FROM books',
    })
  } finally {
    await app.close()
  }
})

// Each test runs the CLI several times; on a busy machine one run can take seconds.
describe('svcbase schema: the round trip through a file', { timeout: 90_000 }, () => {
  it('exports every collection, sorted, the same bytes each time, to stdout or FILE', async () => {
    const out = await run(['schema', 'export', `--dir=${dirA}`])
    expect(out.code, out.stderr).toBe(0)
    const written = await run(['schema', 'export', file, `--dir=${dirA}`])
    expect(written.code, written.stderr).toBe(0)
    expect(written.stderr).toMatch(/^exported \d+ collections to /)
    expect(readFileSync(file, 'utf8')).toBe(out.stdout)
    const payload = readPayload()
    const names = payload.collections.map((c) => c.name as string)
    expect(names).toEqual([...names].sort())
    expect(names).toEqual(expect.arrayContaining(['authors', 'books', 'book_titles', 'users']))
    const books = payload.collections.find((c) => c.name === 'books')!
    expect(Object.keys(books)).toEqual([
      'id',
      'name',
      'type',
      'system',
      'listRule',
      'viewRule',
      'createRule',
      'updateRule',
      'deleteRule',
      'indexes',
      'schema',
    ])
    expect(books).not.toHaveProperty('created')
    // No secret leaves in an export.
    const authors = payload.collections.find((c) => c.name === 'authors')!
    expect(Object.keys(authors.authOptions.authToken)).toEqual(['duration'])
    expect(out.stdout).not.toMatch(/"secret": "/)
    expect(out.stdout.endsWith('}\n')).toBe(true)
  })

  it('applies the file to a fresh folder; then diff finds nothing and both export the same', async () => {
    const applied = await run(['schema', 'apply', file, `--dir=${dirB}`])
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.stdout).toContain('authors: create')
    expect(applied.stdout).toContain('books: create')
    expect(applied.stdout).toMatch(/applied: 3 created, 0 updated, \d+ unchanged/)
    expect(await columns(dirB, 'books')).toEqual([
      'id',
      'title',
      'legacy',
      'author',
      'created',
      'updated',
    ])
    const diff = await run(['schema', 'diff', file, `--dir=${dirB}`])
    expect(diff.code, diff.stdout + diff.stderr).toBe(0)
    expect(diff.stdout).toMatch(/0 to create, 0 to update, \d+ unchanged/)
    const exported = await run(['schema', 'export', `--dir=${dirB}`])
    expect(exported.stdout).toBe(readFileSync(file, 'utf8'))
  })

  it('shows an edit of the file in diff (exit 1), and apply writes it, keeping data', async () => {
    await direct(dirB, (db) =>
      db.run(
        `INSERT INTO books (id, title, legacy, author, created, updated) VALUES (?, ?, ?, '', '', '')`,
        ['b00000000000001', 'Dune', 'old value'],
      ),
    )
    const payload = readPayload()
    const books = payload.collections.find((c) => c.name === 'books')!
    books.schema = books.schema.filter((f: { name: string }) => f.name !== 'legacy')
    books.schema.splice(2, 0, { name: 'pages', type: 'number' })
    books.listRule = 'title != ""'
    writeFileSync(file, `${JSON.stringify(payload, null, 2)}\n`)

    const diff = await run(['schema', 'diff', file, `--dir=${dirB}`])
    expect(diff.code).toBe(1)
    expect(diff.stdout).toContain(
      [
        'books: update',
        '  + pages',
        '  - legacy (kept: pending removal, drop it with --force)',
        '  * listRule',
      ].join('\n'),
    )
    expect(diff.stdout).toMatch(/0 to create, 1 to update/)
    expect(await columns(dirB, 'books')).not.toContain('pages')

    const applied = await run(['schema', 'apply', file, `--dir=${dirB}`])
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.stdout).toMatch(/applied: 0 created, 1 updated/)
    expect(applied.stdout).toContain('1 field(s) not dropped (pending removal): books.legacy')
    expect(await columns(dirB, 'books')).toEqual([
      'id',
      'title',
      'legacy',
      'author',
      'created',
      'updated',
      'pages',
    ])
    const [row] = await direct(dirB, (db) => db.all('SELECT * FROM books'))
    expect(row).toMatchObject({ title: 'Dune', legacy: 'old value', pages: 0 })

    // The kept field still differs from the file; --force drops it, then nothing differs.
    expect((await run(['schema', 'diff', file, `--dir=${dirB}`])).code).toBe(1)
    const forced = await run(['schema', 'apply', file, '--force', `--dir=${dirB}`])
    expect(forced.code, forced.stderr).toBe(0)
    expect(forced.stdout).toContain('books: update\n  - legacy\n')
    expect(await columns(dirB, 'books')).not.toContain('legacy')
    expect((await run(['schema', 'diff', file, `--dir=${dirB}`])).code).toBe(0)
    // Folder A was never touched, and is left alone by a diff that names it.
    expect(await columns(dirA, 'books')).toContain('legacy')
  })

  it('prints progress for a large schema and names collections the file leaves out', async () => {
    const big = join(root, 'big.json')
    const many = Array.from({ length: 12 }, (_, i) => ({
      name: `bulk_${String(i).padStart(2, '0')}`,
      type: 'base',
      schema: [{ name: 'n', type: 'number' }],
    }))
    writeFileSync(big, JSON.stringify(many))
    const res = await run(['schema', 'apply', big, `--dir=${dirB}`])
    expect(res.code, res.stderr).toBe(0)
    expect(res.stderr).toContain('[1/12] saved bulk_00')
    expect(res.stderr).toContain('[12/12] saved bulk_11')
    const diff = await run(['schema', 'diff', big, `--dir=${dirB}`])
    expect(diff.code).toBe(0)
    expect(diff.stdout).toMatch(/not in the file \(left alone\): .*authors.*books/)
  })

  it('refuses bad files with a clear message: diff exits with 2, apply with 1', async () => {
    const bad = join(root, 'bad.json')
    writeFileSync(bad, '[{"name": "x",')
    const invalidJson = await run(['schema', 'diff', bad, `--dir=${dirB}`])
    expect(invalidJson.code).toBe(2)
    expect(invalidJson.stderr).toMatch(/^error: .*bad\.json is not valid JSON/)
    writeFileSync(bad, '{"name": "x"}')
    const shape = await run(['schema', 'apply', bad, `--dir=${dirB}`])
    expect(shape.code).toBe(1)
    expect(shape.stderr).toContain('The schema payload must be an array of collections')
    writeFileSync(
      bad,
      JSON.stringify([{ name: 'broken', type: 'base', schema: [{ name: 'f', type: 'nope' }] }]),
    )
    const invalid = await run(['schema', 'apply', bad, `--dir=${dirB}`])
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toContain('Failed to apply the schema of collection "broken".')
    expect(invalid.stderr).toContain(
      'broken.schema.0.type: Must be a valid value. (validation_in_invalid)',
    )
    const invalidDiff = await run(['schema', 'diff', bad, `--dir=${dirB}`])
    expect(invalidDiff.code).toBe(2)
    const missing = await run(['schema', 'diff', join(root, 'nope.json'), `--dir=${dirB}`])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('cannot read')
    expect(await columns(dirB, 'broken')).toEqual([])
  })

  it('answers a mistake on the command line with the usage and exit status 2', async () => {
    const cases = [
      [['schema'], 'schema needs an action'],
      [['schema', 'frob'], 'unknown schema action "frob"'],
      [['schema', 'diff'], 'schema diff needs FILE'],
      [['schema', 'export', file, 'more'], 'schema export takes one FILE at most'],
      [['schema', 'diff', file, '--force'], '--force belongs to schema apply'],
      [['schema', 'apply', file, '--http=127.0.0.1:1'], 'unknown flag for "schema": --http'],
    ] as const
    // Refused before any folder is opened, so they may run side by side.
    const results = await Promise.all(cases.map(([args]) => run([...args, `--dir=${dirB}`])))
    results.forEach((res, i) => {
      const [args, message] = cases[i]!
      expect(res.code, args.join(' ')).toBe(2)
      expect(res.stderr).toContain(`error: ${message}`)
      expect(res.stderr).toContain('Usage:')
    })
  })
})

describe('svcbase serve --automigrate', () => {
  it('applies ./svc_schema.json from the working directory before it answers', async () => {
    const cwd = join(root, 'project')
    mkdirSync(cwd)
    writeFileSync(join(cwd, 'svc_schema.json'), readFileSync(file))
    const s = await serve(['--automigrate', '--dir=./data'], cwd)
    expect(s.url, s.out + s.err).not.toBeNull()
    expect(s.out).toMatch(/automigrate: applied: 3 created/)
    // books (public list) answers at once, with the file's fields.
    const list = await fetch(`${s.url}/api/collections/books/records`)
    expect(list.status).toBe(200)
    expect(await columns(join(cwd, 'data'), 'books')).toEqual([
      'id',
      'title',
      'pages',
      'author',
      'created',
      'updated',
    ])
    const view = await fetch(`${s.url}/api/collections/book_titles/records`)
    expect(view.status).toBe(200)
  })

  it('does not start when the file does not apply, and writes nothing', async () => {
    const cwd = join(root, 'broken-project')
    mkdirSync(cwd)
    writeFileSync(
      join(cwd, 'svc_schema.json'),
      JSON.stringify([
        { name: 'fine', type: 'base', schema: [] },
        { name: 'broken', type: 'base', schema: [{ name: 'f', type: 'nope' }] },
      ]),
    )
    const s = await serve(['--automigrate', '--dir=./data'], cwd)
    expect(s.url).toBeNull()
    expect(s.code).toBe(1)
    expect(s.err).toContain('automigrate: Failed to apply the schema of collection "broken".')
    expect(await columns(join(cwd, 'data'), 'fine')).toEqual([])
  })
})
