/**
 * `svcbase migrate …` and `serve`'s start-up migrations, as child processes (PocketBase's words
 * and exit codes, checked on the oracle: `Applied <file>`, `No new migrations to apply.`,
 * `Reverted <file>`, `(y/N)` questions, `The command has been cancelled`, `Successfully created
 * file "…"`, `failed to apply migration <file>: …`).
 */
import { spawn } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/core/create-app.js'
import { silentLogger } from '../src/core/logger.js'
import { sql } from '../src/store/sql.js'
import { SVCBASE_READY } from '../bench/servers.js'
import { copyFolder } from './pocketbase/migrations/folders.js'

const CLI = ['--import', 'tsx', 'src/cli.ts']
const root = mkdtempSync(join(tmpdir(), 'svcbase-cli-migrate-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

interface Result {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the CLI to its end with `input` on stdin; never rejects. */
function runCli(args: string[], input = ''): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: process.cwd() })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(input)
  })
}

/** A fresh app folder: `<app>/pb_data` and `<app>/pb_migrations` (PocketBase's default). */
function appFolder(name: string): { data: string; migrations: string } {
  const app = join(root, name)
  const migrations = join(app, 'pb_migrations')
  mkdirSync(migrations, { recursive: true })
  return { data: join(app, 'pb_data'), migrations }
}

/** The applied migration files and the non-system collections of the app in `data`. */
async function state(data: string): Promise<{ files: string[]; collections: string[] }> {
  const app = await createApp({ dataDir: data, logger: silentLogger })
  try {
    const rows = await app.db.all<{ file: string }>(sql`SELECT file FROM _migrations ORDER BY file`)
    return {
      // PocketBase's own `.go` rows (which svcbase may write for a new data folder) left out.
      files: rows.map((r) => r.file).filter((f) => !f.endsWith('.go')),
      collections: app.collections
        .all()
        .filter((c) => !c.system)
        .map((c) => c.name)
        .sort(),
    }
  } finally {
    await app.close()
  }
}

const ONE =
  'migrate((app) => { app.save(new Collection({ name: "one" })) }, (app) => { app.delete(app.findCollectionByNameOrId("one")) })\n'
const TWO =
  'migrate((app) => { app.save(new Collection({ name: "two" })) }, (app) => { app.delete(app.findCollectionByNameOrId("two")) })\n'

describe('svcbase migrate', () => {
  const a = appFolder('a')
  const dir = `--dir=${a.data}`

  it('up applies the new files of <dir>/../pb_migrations, once', async () => {
    writeFileSync(join(a.migrations, '1700000001_one.js'), ONE)
    writeFileSync(join(a.migrations, '1700000002_two.js'), TWO)
    writeFileSync(join(a.migrations, 'notes.txt'), 'not a migration')
    const r = await runCli(['migrate', 'up', dir])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('Applied 1700000001_one.js\nApplied 1700000002_two.js\n')
    const again = await runCli(['migrate', dir])
    expect(again.stdout).toBe('No new migrations to apply.\n')
    expect(await state(a.data)).toEqual({
      files: ['1700000001_one.js', '1700000002_two.js'],
      collections: ['one', 'two', 'users'],
    })
  })

  it('down asks first; n cancels, y reverts the last one', async () => {
    const no = await runCli(['migrate', 'down', dir], 'n\n')
    expect(no.code).toBe(0)
    expect(no.stderr).toContain('1700000002_two.js')
    expect(no.stderr).toContain(
      'Do you really want to revert the last 1 applied migration(s)? (y/N)',
    )
    expect(no.stdout).toBe('The command has been cancelled\n')
    expect((await state(a.data)).collections).toContain('two')
    const yes = await runCli(['migrate', 'down', dir], 'y\n')
    expect(yes.stdout).toBe('Reverted 1700000002_two.js\n')
    expect(await state(a.data)).toEqual({
      files: ['1700000001_one.js'],
      collections: ['one', 'users'],
    })
  })

  it('down N --force reverts without asking', async () => {
    const r = await runCli(['migrate', 'down', '5', '--force', dir])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('Reverted 1700000001_one.js\n')
    expect(await state(a.data)).toEqual({ files: [], collections: ['users'] })
    expect((await runCli(['migrate', 'down', '--force', dir])).stdout).toBe(
      'No migrations to revert.\n',
    )
  })

  it('create writes the empty template as <unix seconds>_<snake name>.js', async () => {
    const before = Math.floor(Date.now() / 1000)
    const r = await runCli(['migrate', 'create', 'Add stuff', dir], 'y\n')
    expect(r.code).toBe(0)
    const made = readdirSync(a.migrations).filter((f) => f.endsWith('_add_stuff.js'))
    expect(made).toHaveLength(1)
    expect(Number(made[0]!.split('_')[0])).toBeGreaterThanOrEqual(before)
    expect(r.stdout).toContain(`Successfully created file "`)
    expect(r.stdout).toContain(made[0])
    expect(readFileSync(join(a.migrations, made[0]!), 'utf8')).toBe(
      '/// <reference path="../pb_data/types.d.ts" />\nmigrate((app) => {\n  // add up queries...\n}, (app) => {\n  // add down queries...\n})\n',
    )
    // It applies as it is (nothing to do), after the two reverted ones, in name order.
    expect((await runCli(['migrate', 'up', dir])).stdout).toBe(
      `Applied 1700000001_one.js\nApplied 1700000002_two.js\nApplied ${made[0]}\n`,
    )
  })

  it('history-sync forgets applied files that are gone, not PocketBase .go rows', async () => {
    const app = await createApp({ dataDir: a.data, logger: silentLogger })
    await app.db.run(sql`DELETE FROM _migrations WHERE file = '1640988000_init.go'`)
    await app.db.run(sql`INSERT INTO _migrations (file, applied) VALUES ('1640988000_init.go', 1)`)
    await app.close()
    const made = readdirSync(a.migrations).find((f) => f.endsWith('_add_stuff.js'))!
    unlinkSync(join(a.migrations, made))
    const r = await runCli(['migrate', 'history-sync', dir])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(
      `Removed ${made} from the _migrations table\nThe _migrations table was synced with the available migrations.\n`,
    )
    expect((await state(a.data)).files).toEqual(['1700000001_one.js', '1700000002_two.js'])
    const check = await createApp({ dataDir: a.data, logger: silentLogger })
    try {
      const go = await check.db.all(
        sql`SELECT file FROM _migrations WHERE file = '1640988000_init.go'`,
      )
      expect(go).toHaveLength(1)
    } finally {
      await check.close()
    }
  })

  it('collections writes a snapshot that rebuilds the collections elsewhere', async () => {
    const src = appFolder('snap-src')
    copyFolder('folder', src.migrations)
    expect((await runCli(['migrate', 'up', `--dir=${src.data}`])).code).toBe(0)
    const out = join(root, 'snapshot')
    const r = await runCli([
      'migrate',
      'collections',
      '--force',
      `--dir=${src.data}`,
      `--migrationsDir=${out}`,
    ])
    expect(r.code).toBe(0)
    const [file] = readdirSync(out)
    expect(file).toMatch(/^\d+_collections_snapshot\.js$/)
    const text = readFileSync(join(out, file!), 'utf8')
    expect(text).toContain('return app.importCollections(snapshot, false);')
    const dst = appFolder('snap-dst')
    cpSync(join(out, file!), join(dst.migrations, file!))
    expect((await runCli(['migrate', 'up', `--dir=${dst.data}`])).stdout).toBe(`Applied ${file}\n`)
    const fieldsOf = async (data: string) => {
      const app = await createApp({ dataDir: data, logger: silentLogger })
      try {
        return app.collections
          .all()
          .map((c) => ({
            name: c.name,
            fields: c.fields.map((f) => `${f.id}:${f.name}:${f.type}`),
          }))
          .sort((x, y) => (x.name < y.name ? -1 : 1))
      } finally {
        await app.close()
      }
    }
    expect(await fieldsOf(dst.data)).toEqual(await fieldsOf(src.data))
  })

  it('refuses bad input with a clear error (exit 2)', async () => {
    const bogus = await runCli(['migrate', 'bogus', dir])
    expect(bogus.code).toBe(2)
    expect(bogus.stderr).toContain('error: unsupported command: "bogus"')
    const noName = await runCli(['migrate', 'create', dir])
    expect(noName.code).toBe(2)
    expect(noName.stderr).toContain('error: missing migration file name')
    const badCount = await runCli(['migrate', 'down', 'abc', dir])
    expect(badCount.code).toBe(2)
    expect(badCount.stderr).toContain('invalid number of migrations to revert "abc"')
    const extra = await runCli(['migrate', 'up', 'now', dir])
    expect(extra.code).toBe(2)
    expect(extra.stderr).toContain('too many arguments for "migrate up"')
  })

  it('a failing file stops with the file and the error; nothing is kept (exit 1)', async () => {
    const f = appFolder('failing')
    copyFolder('failing', f.migrations)
    const r = await runCli(['migrate', 'up', `--dir=${f.data}`])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('failed to apply migration 1700000002_boom.js: Error: boom at ')
    expect(await state(f.data)).toEqual({ files: [], collections: ['users'] })
  })
})

describe('serve', () => {
  /** Runs `serve` until it listens (then stops it) or exits; returns what it printed. */
  function serveOnce(args: string[]): Promise<Result & { listened: boolean }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [...CLI, 'serve', '--http=127.0.0.1:0', ...args], {
        cwd: process.cwd(),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      let listened = false
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString()
        if (!listened && SVCBASE_READY.test(stdout)) {
          listened = true
          child.kill('SIGTERM')
        }
      })
      child.once('exit', (code) => resolve({ code, stdout, stderr, listened }))
    })
  }

  it('applies the new files of <dir>/../pb_migrations at start', async () => {
    const s = appFolder('serve')
    writeFileSync(join(s.migrations, '1700000001_one.js'), ONE)
    const r = await serveOnce([`--dir=${s.data}`])
    expect(r.listened).toBe(true)
    expect(r.stdout).toContain('Applied migration 1700000001_one.js\n')
    expect(await state(s.data)).toEqual({
      files: ['1700000001_one.js'],
      collections: ['one', 'users'],
    })
    // --migrationsDir names another folder; --automigrate=false does not stop them (PocketBase).
    const other = join(root, 'serve-other')
    mkdirSync(other)
    writeFileSync(join(other, '1700000002_two.js'), TWO)
    const again = await serveOnce([
      `--dir=${s.data}`,
      `--migrationsDir=${other}`,
      '--automigrate=false',
    ])
    expect(again.stdout).toContain('Applied migration 1700000002_two.js\n')
    expect(again.stdout).not.toContain('1700000001_one.js')
    expect(again.stderr).not.toContain('--migrationsDir')
  })

  it('--automigrate writes a migration for a collection created through the API', async () => {
    const s = appFolder('serve-auto')
    expect(
      (await runCli(['superuser', 'create', 'a@example.com', 'a-long-password', `--dir=${s.data}`]))
        .code,
    ).toBe(0)
    const child = spawn(
      process.execPath,
      [...CLI, 'serve', '--http=127.0.0.1:0', '--automigrate', `--dir=${s.data}`],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
    )
    try {
      let out = ''
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString()
          const m = SVCBASE_READY.exec(out)
          if (m) resolve(m[1]!)
        })
        child.once('exit', () => reject(new Error(out)))
      })
      const login = await fetch(`${url}/api/collections/_superusers/auth-with-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identity: 'a@example.com', password: 'a-long-password' }),
      })
      const { token } = (await login.json()) as { token: string }
      const made = await fetch(`${url}/api/collections`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: token },
        body: JSON.stringify({ name: 'auto' }),
      })
      expect(made.status).toBe(200)
      const files = readdirSync(s.migrations)
      expect(files).toHaveLength(1)
      expect(files[0]).toMatch(/^\d+_created_auto\.js$/)
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await exited
      }
    }
    // Written as applied: the next start applies nothing.
    const again = await serveOnce([`--dir=${s.data}`])
    expect(again.listened).toBe(true)
    expect(again.stdout).not.toContain('Applied migration')
  })

  it('does not start when a migration fails', async () => {
    const s = appFolder('serve-failing')
    copyFolder('legacy', s.migrations)
    const r = await serveOnce([`--dir=${s.data}`])
    expect(r.listened).toBe(false)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      'failed to apply migration 1700000002_legacy_dao.js: ReferenceError: Dao is not defined at ',
    )
    expect(existsSync(join(s.migrations, '1700000002_legacy_dao.js'))).toBe(true)
    expect(await state(s.data)).toEqual({ files: [], collections: ['users'] })
  })
})
