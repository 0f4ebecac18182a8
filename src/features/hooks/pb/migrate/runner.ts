/**
 * The runner of PocketBase's `pb_migrations` files: `*.js` (and `*.ts`, transpiled by esbuild)
 * directly in the folder, in file-name (byte) order, each evaluated once in a `node:vm` context
 * of its own where `migrate(up, down)` registers it under its base name. `_migrations` holds
 * PocketBase's history (`file`, `applied` in microseconds), so a folder PocketBase already
 * migrated re-runs nothing and PocketBase's own `*.go` rows are left alone. As in PocketBase,
 * every pending migration of one run executes in one transaction: one failure rolls them all
 * back and records none (`failed to apply migration <file>: <error>`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import vm from 'node:vm'
import type { App } from '../../../../core/app.js'
import { sql } from '../../../../store/sql.js'
import { lazyPackage } from '../../../../tools/lazy-module.js'
import { hostError, locate } from '../invocation.js'
import { migrationApp } from './app.js'
import { migrationGlobals, type Registered, type RunState } from './globals.js'
import { GoError, toGoError } from './go-error.js'
import { Replay, runToEnd } from './replay.js'

/** One up or down may run this long (milliseconds, each run of its replay) before it fails. */
const RUN_TIMEOUT_MS = 30_000

const loadEsbuild = lazyPackage<typeof import('esbuild')>('esbuild')

/** A migration file, loaded. */
export interface Migration extends Registered {
  /** The base name, as `_migrations` records it. */
  file: string
  path: string
  context: vm.Context
  state: RunState
}

/** A migration that failed: PocketBase's words, with the file and the script's error. */
export class MigrationError extends Error {
  constructor(
    readonly verb: 'apply' | 'revert' | 'load',
    readonly file: string,
    cause: unknown,
    where: string,
  ) {
    const err = hostError(cause)
    // An `app` call's failure is PocketBase's Go error: its text alone, as PocketBase prints it.
    const own = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
    const text = err instanceof GoError ? err.message : `${own}${where ? ` at ${where}` : ''}`
    super(`failed to ${verb} migration ${file}: ${text}`, { cause })
    this.name = 'MigrationError'
  }
}

/** The migration file names of `dir` (`*.js`, `*.ts`), in byte order; none when it is missing. */
export function migrationFiles(dir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  return names
    .filter((n) => /\.(js|ts)$/.test(n) && statSync(join(dir, n)).isFile())
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
}

/** Loads every migration file of `dir` (each file's top level runs once, here). */
export function loadMigrations(dir: string, hooksDir = ''): Migration[] {
  return migrationFiles(dir).map((file) => {
    const path = join(dir, file)
    const registered: Registered = { up: null, down: null }
    const state: RunState = { run: null }
    const context = vm.createContext(migrationGlobals(hooksDir, state, registered), {
      name: path,
    })
    let source = readFileSync(path, 'utf8')
    try {
      if (file.endsWith('.ts'))
        source = loadEsbuild().transformSync(source, { loader: 'ts', sourcefile: path }).code
      new vm.Script(source, { filename: path }).runInContext(context, {
        timeout: RUN_TIMEOUT_MS,
        displayErrors: false,
      })
    } catch (err) {
      throw new MigrationError('load', file, err, locate(hostError(err), path))
    }
    return { file, path, context, state, ...registered }
  })
}

/** Runs `fn(app)` of migration `m` to its end in the transaction `tx` (see `replay.ts`). */
async function runStep(
  tx: App,
  m: Migration,
  fn: (app: object) => unknown,
  verb: 'apply' | 'revert',
): Promise<void> {
  const replay = new Replay(toGoError)
  const app = migrationApp(tx, replay, m.file)
  m.state.run = { tx, replay }
  const ctx = m.context as { __svcFn?: unknown; __svcApp?: unknown }
  const call = new vm.Script('__svcFn(__svcApp)', { filename: m.path })
  try {
    await runToEnd(replay, () => {
      ctx.__svcFn = fn
      ctx.__svcApp = app
      call.runInContext(m.context, { timeout: RUN_TIMEOUT_MS, displayErrors: false })
    })
  } catch (err) {
    throw new MigrationError(verb, m.file, err, locate(hostError(err), m.path))
  } finally {
    m.state.run = null
    delete ctx.__svcFn
    delete ctx.__svcApp
  }
}

/** Now in microseconds (PocketBase's `applied`). */
function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000)
}

/** The `_migrations` rows, newest first (PocketBase's order: `applied` padded, then file). */
export async function appliedRows(app: App): Promise<{ file: string; applied: number }[]> {
  const rows = await app.db.all<{ file: string; applied: number | string }>(
    sql`SELECT file, applied FROM _migrations`,
  )
  const key = (r: { applied: number | string }) => String(r.applied).padEnd(16, '0')
  return rows
    .map((r) => ({ file: r.file, applied: Number(r.applied) }))
    .sort((a, b) => (key(a) === key(b) ? (a.file < b.file ? 1 : -1) : key(a) < key(b) ? 1 : -1))
}

/**
 * Applies the migrations of `dir` not yet in `_migrations`, all in one transaction; returns
 * their file names (none: nothing to do). Throws a {@link MigrationError} naming the file that
 * failed; then nothing of the run is kept.
 */
export async function applyMigrations(app: App, dir: string, hooksDir = ''): Promise<string[]> {
  const all = loadMigrations(dir, hooksDir)
  const done = new Set((await appliedRows(app)).map((r) => r.file))
  const pending = all.filter((m) => m.up !== null && !done.has(m.file))
  if (pending.length === 0) return []
  await app.runInTransaction(async (tx) => {
    for (const m of pending) {
      await runStep(tx, m, m.up!, 'apply')
      await tx.db.run(
        sql`INSERT INTO _migrations (file, applied) VALUES (${m.file}, ${nowMicros()})`,
      )
    }
  })
  return pending.map((m) => m.file)
}

/**
 * Reverts the last `count` applied migrations among the files of `dir` (all with a negative
 * count), newest first, in one transaction: each one's `down` runs and its row goes.
 */
export async function revertMigrations(
  app: App,
  dir: string,
  count: number,
  hooksDir = '',
): Promise<string[]> {
  const byFile = new Map(loadMigrations(dir, hooksDir).map((m) => [m.file, m]))
  const rows = (await appliedRows(app)).filter((r) => byFile.has(r.file))
  const chosen = (count < 0 ? rows : rows.slice(0, count)).map((r) => byFile.get(r.file)!)
  if (chosen.length === 0) return []
  await app.runInTransaction(async (tx) => {
    for (const m of chosen) {
      if (m.down) await runStep(tx, m, m.down, 'revert')
      await tx.db.run(sql`DELETE FROM _migrations WHERE file = ${m.file}`)
    }
  })
  return chosen.map((m) => m.file)
}

/** The applied migrations `revertMigrations(…, count)` would revert, newest first. */
export async function lastApplied(app: App, dir: string, count: number): Promise<string[]> {
  const files = new Set(migrationFiles(dir))
  const rows = (await appliedRows(app)).filter((r) => files.has(r.file))
  return (count < 0 ? rows : rows.slice(0, count)).map((r) => r.file)
}

/**
 * Deletes the `_migrations` rows whose file is no longer in `dir`; PocketBase's own `*.go`
 * rows stay (they name its built-in migrations, not files). Returns the files dropped.
 */
export async function syncHistory(app: App, dir: string): Promise<string[]> {
  const files = new Set(migrationFiles(dir))
  const gone = (await appliedRows(app))
    .map((r) => r.file)
    .filter((f) => !files.has(f) && !f.endsWith('.go'))
  if (gone.length === 0) return []
  await app.runInTransaction(async (tx) => {
    for (const f of gone) await tx.db.run(sql`DELETE FROM _migrations WHERE file = ${f}`)
  })
  return gone
}
