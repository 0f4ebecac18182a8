/**
 * Finds, or compiles once, the `svc_budget` SQLite extension (`budget-source.ts`) and loads it
 * into connections. It is compiled against the SQLite headers better-sqlite3 ships
 * (`deps/sqlite3/sqlite3ext.h`) with the machine's C compiler, the one better-sqlite3 itself was
 * built with: by `npm run build` into `dist/native/`, or on first use when that copy is missing
 * (into the system temp folder when `dist/` cannot be written). The file name carries a hash of
 * the source, so a changed source is compiled again.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type Database from 'better-sqlite3'
import { BUDGET_EXTENSION_SOURCE } from './budget-source.js'

/** `<package>/dist/native`, from `src/store/sqlite` and `dist/store/sqlite` alike. */
const DIST_NATIVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../../dist/native')

/** The extension's path once found or built; null when it cannot be had here; undefined: not yet tried. */
let found: string | null | undefined
/** Why the extension is missing, for the warning. */
let missingReason = ''

/** The compiler's flags for a shared library on this platform. */
const FLAGS =
  process.platform === 'darwin'
    ? ['-dynamiclib', '-undefined', 'dynamic_lookup']
    : ['-shared', '-fPIC', '-pthread', '-Wl,-z,nodelete']

function fileName(): string {
  const hash = createHash('sha256')
    .update(BUDGET_EXTENSION_SOURCE)
    .update(FLAGS.join(' '))
    .digest('hex')
    .slice(0, 12)
  const suffix = process.platform === 'darwin' ? 'dylib' : 'so'
  return `svc_budget-${hash}.${suffix}`
}

/** Compiles the extension into `dir` (atomically: other processes may be compiling too). */
function compileInto(dir: string): string {
  const out = join(dir, fileName())
  if (existsSync(out)) return out
  mkdirSync(dir, { recursive: true })
  const include = join(
    dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
    'deps',
    'sqlite3',
  )
  const tmp = join(dir, `.svc_budget-${process.pid}-${Date.now()}`)
  writeFileSync(`${tmp}.c`, BUDGET_EXTENSION_SOURCE)
  try {
    execFileSync(
      process.env.CC ?? 'cc',
      [...FLAGS, '-O2', '-I', include, '-o', `${tmp}.so`, `${tmp}.c`],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 60_000,
      },
    )
    renameSync(`${tmp}.so`, out)
  } finally {
    rmSync(`${tmp}.c`, { force: true })
    rmSync(`${tmp}.so`, { force: true })
  }
  return out
}

/**
 * The path of the compiled extension, compiling it if needed; null (with `budgetMissingReason`)
 * when no C compiler or no writable place is at hand.
 */
export function budgetExtensionPath(): string | null {
  if (found !== undefined) return found
  if (process.platform === 'win32') {
    missingReason = 'not built on Windows'
    return (found = null)
  }
  const errors: string[] = []
  for (const dir of [DIST_NATIVE, join(tmpdir(), `svcbase-native-${process.getuid?.() ?? 0}`)]) {
    try {
      return (found = compileInto(dir))
    } catch (err) {
      const e = err as { stderr?: Buffer; message?: string }
      errors.push(`${dir}: ${e.stderr?.toString().trim() || e.message || String(err)}`)
    }
  }
  missingReason = errors.join('; ')
  return (found = null)
}

/** Why `budgetExtensionPath()` found nothing. */
export function budgetMissingReason(): string {
  return missingReason
}

/**
 * Loads the extension into `conn` and sets its limit; false when the extension is not available
 * (the connection then runs without a time limit, and the process is warned once).
 */
export function loadBudget(conn: Database.Database, limitMs: number, readsOnly: boolean): boolean {
  const path = budgetExtensionPath()
  if (path) {
    try {
      conn.loadExtension(path)
      conn.prepare('SELECT svc_budget(?, ?)').get(limitMs, readsOnly ? 1 : 0)
      return true
    } catch (err) {
      missingReason = `${path}: ${err instanceof Error ? err.message : String(err)}`
      found = null
    }
  }
  if (!warned) {
    warned = true
    process.emitWarning(
      `svcbase: reads have no time budget (the SQLite extension svc_budget is not available: ${missingReason}); a slow read holds the event loop until it ends`,
    )
  }
  return false
}

let warned = false
