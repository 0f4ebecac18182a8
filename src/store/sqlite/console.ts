import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import {
  ConsoleCrashed,
  ConsolePragmaRefused,
  ConsoleRefused,
  ConsoleTimeout,
  type ConsoleRequest,
  type ConsoleResult,
} from '../console.js'
import { DbError } from '../db.js'
import { ALLOWED_PRAGMAS, refusedPragma } from './console-pragmas.js'

/**
 * The SQL console's runner: a child process with a connection of its own.
 *
 * Why a process and not a worker thread: better-sqlite3 runs a statement inside one native call
 * and has no `sqlite3_interrupt`, and `Worker.terminate()` only stops JavaScript, so a worker
 * stuck in a statement that never ends (a recursive CTE) would burn a core until the process
 * exits. A killed process stops at once; SQLite then ignores the WAL frames of its transaction
 * that never committed and the OS releases its locks, so a cancelled write is rolled back.
 *
 * The code is a string run with `node -e`, so it works the same from `dist/` and under tsx. The
 * request goes in on stdin (never in argv, where `ps` would show it); one JSON answer comes out
 * on stdout.
 *
 * Reads open the file read-only (`SQLITE_OPEN_READONLY`): SQLite refuses every write there,
 * whatever the text says (`WITH x AS (SELECT 1) DELETE …` passes a prefix check). Rows are read
 * one by one and the read stops at `maxRows + 1` rows or `maxBytes`, so a large result is never
 * read whole. Writes run in `BEGIN IMMEDIATE`; temporary triggers refuse row changes to
 * `readOnlyTables`, and the schema (`sqlite_schema`) is compared before the commit, so a
 * statement that changes a frozen table is rolled back.
 */
const CHILD_SOURCE = String.raw`
'use strict'
const READONLY_MARK = 'svcbase-console-readonly:'
let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => { input += chunk })
process.stdin.on('end', () => {
  let out
  try {
    out = { ok: true, result: main(JSON.parse(input)) }
  } catch (err) {
    const message = String((err && err.message) || err)
    out = message.startsWith(READONLY_MARK)
      ? { ok: false, refused: { reason: 'rows', table: message.slice(READONLY_MARK.length) } }
      : err && err.refused
        ? { ok: false, refused: err.refused }
        : { ok: false, message, code: (err && err.code) || null }
  }
  process.stdout.write(JSON.stringify(out), () => process.exit(0))
})

function main(req) {
  const Database = require(req.driver)
  const db = new Database(req.file, { readonly: !req.write, fileMustExist: true })
  try {
    db.pragma('busy_timeout = ' + Number(req.busyTimeout))
    db.defaultSafeIntegers(true)
    if (!req.write) {
      db.pragma('query_only = ON')
      return req.text ? timed(() => read(db, req)) : read(db, req)
    }
    db.pragma('foreign_keys = ON')
    db.pragma('synchronous = NORMAL')
    // NB: the app's own writer checkpoints; a killed console must never be mid-checkpoint.
    db.pragma('wal_autocheckpoint = 0')
    return req.text ? timed(() => write(db, req)) : write(db, req)
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK')
    db.close()
  }
}

/** The result of fn with the time it took, in milliseconds (\`elapsedMs\`). */
function timed(fn) {
  const started = performance.now()
  const result = fn()
  result.elapsedMs = performance.now() - started
  return result
}

/** A value as JSON can carry it: integers past 2^53 and non-finite reals as text, BLOBs in base64. */
function jsonValue(v) {
  if (typeof v === 'bigint') {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : v.toString()
  }
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v)
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')
  return v
}

/**
 * A value as Go's database/sql hands PocketBase a cell to print: integers and text as they are,
 * BLOBs as their bytes read as UTF-8, reals as Go's %v (%g, shortest: from 1e6 up and below 1e-4
 * with an exponent, e+NN / e-NN), NULL as null.
 */
function goText(v) {
  if (v === null || v === undefined) return null
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8')
  if (typeof v !== 'number') return String(v)
  if (Number.isNaN(v)) return 'NaN'
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf'
  if (v === 0) return Object.is(v, -0) ? '-0' : '0'
  const [mantissa, e] = v.toExponential().split('e')
  const exp = Number(e)
  if (exp < -4 || exp >= 6) {
    return mantissa + 'e' + (exp < 0 ? '-' : '+') + String(Math.abs(exp)).padStart(2, '0')
  }
  return String(v)
}

/** A value's size as JSON at least (bytes), without converting it. */
function sizeOf(v) {
  if (typeof v === 'string') return v.length + 2
  if (v instanceof Uint8Array) return Math.ceil(v.byteLength / 3) * 4 + 2
  return 1
}

/** Column names made unique (a second "a" becomes "a:2"), so no value is lost in a row object. */
function uniqueNames(names) {
  const seen = new Map()
  return names.map((name) => {
    const n = (seen.get(name) || 0) + 1
    seen.set(name, n)
    return n === 1 ? name : name + ':' + n
  })
}

function read(db, req) {
  const stmt = db.prepare(req.sql)
  if (!stmt.reader) {
    // The read-only connection refuses it (SQLITE_READONLY) unless it writes nothing at all.
    stmt.run()
    return { kind: 'read', columns: [], rows: [], truncated: false }
  }
  stmt.raw(true)
  const described = stmt.columns()
  const columns = uniqueNames(described.map((c) => c.name))
  const text = req.text
    ? { columns: described.map((c) => ({ name: c.name, type: c.type || '' })), rows: [] }
    : null
  const rows = []
  let count = 0
  let bytes = 0
  let truncated = false
  const it = stmt.iterate()
  try {
    for (const raw of it) {
      if (count >= req.maxRows) {
        truncated = true
        break
      }
      // Sized before any conversion, so a huge value is never turned into a huge string.
      let estimate = 0
      for (const v of raw) estimate += sizeOf(v)
      if (bytes + estimate > req.maxBytes) {
        truncated = true
        break
      }
      const row = {}
      for (let i = 0; i < columns.length; i++) row[columns[i]] = jsonValue(raw[i])
      bytes += JSON.stringify(row).length
      if (bytes > req.maxBytes) {
        truncated = true
        break
      }
      // NB: as text only, when asked so (the answer is not carried twice).
      if (text) text.rows.push(raw.map(goText))
      else rows.push(row)
      count++
    }
  } finally {
    if (it.return) it.return()
  }
  return text
    ? { kind: 'read', columns, rows, truncated, text }
    : { kind: 'read', columns, rows, truncated }
}

function schemaOf(db) {
  const map = new Map()
  for (const r of db.prepare('SELECT type, name, tbl_name, sql FROM main.sqlite_schema').all()) {
    map.set(r.type + ' ' + r.name, r)
  }
  return map
}

function quote(name) {
  return '"' + String(name).replace(/"/g, '""') + '"'
}

function write(db, req) {
  const frozen = new Set(req.frozenSchema.map((t) => t.toLowerCase()))
  const tables = new Set(
    db.prepare("SELECT name FROM main.sqlite_schema WHERE type = 'table'").pluck().all().map((n) => n.toLowerCase()),
  )
  req.readOnlyTables.forEach((table, i) => {
    if (!tables.has(table.toLowerCase())) return
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      const mark = "'" + (READONLY_MARK + table).replace(/'/g, "''") + "'"
      db.exec(
        'CREATE TEMP TRIGGER ' + quote('svc_console_ro_' + i + '_' + op) + ' BEFORE ' + op +
          ' ON main.' + quote(table) + ' BEGIN SELECT RAISE(ABORT, ' + mark + '); END',
      )
    }
  })
  db.exec('BEGIN IMMEDIATE')
  const before = schemaOf(db)
  const stmt = db.prepare(req.sql)
  let changes
  if (stmt.reader) {
    for (const _ of stmt.iterate()) {
      // run it through (INSERT … RETURNING is a reader); the rows are not answered
    }
    changes = Number(db.prepare('SELECT changes()').pluck().get())
  } else {
    changes = stmt.run().changes
  }
  // A lone COMMIT or ROLLBACK ended the transaction: it changed nothing by itself.
  if (!db.inTransaction) return { kind: 'write', rowsAffected: 0, schemaChanged: false }
  const after = schemaOf(db)
  let schemaChanged = false
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(key)
    const b = after.get(key)
    if (a && b && a.sql === b.sql && a.tbl_name === b.tbl_name) continue
    schemaChanged = true
    for (const r of [a, b]) {
      if (!r) continue
      for (const name of [r.tbl_name, r.name]) {
        if (frozen.has(String(name).toLowerCase())) {
          db.exec('ROLLBACK')
          throw { refused: { reason: 'schema', table: String(r.tbl_name) } }
        }
      }
    }
  }
  db.exec('COMMIT')
  return { kind: 'write', rowsAffected: Number(changes), schemaChanged }
}
`

/** Bytes of the child's answer accepted beyond `maxBytes` (names, keys, quoting, the envelope). */
const ANSWER_OVERHEAD = 1 << 20

/** The child's JavaScript heap: enough for `maxBytes` of rows many times over. */
const CHILD_HEAP_MB = 256

interface ChildAnswer {
  ok: boolean
  result?: ConsoleResult
  message?: string
  code?: string | null
  refused?: { reason: 'schema' | 'rows'; table: string }
}

/**
 * Runs one console statement on the SQLite file `file` in a child process killed at
 * `timeoutMs`. Driver errors reject as a `DbError` with SQLite's message as it is.
 */
export function runSqliteConsole(
  file: string,
  request: ConsoleRequest,
  busyTimeout: number,
): Promise<ConsoleResult> {
  const pragma = refusedPragma(request.sql)
  if (pragma !== null) return Promise.reject(new ConsolePragmaRefused(pragma, ALLOWED_PRAGMAS))
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${CHILD_HEAP_MB}`, '-e', CHILD_SOURCE],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      // NB: no NODE_OPTIONS (a test runner's loader would slow the start) and no secrets.
      env: {},
      windowsHide: true,
    },
  )
  const limit = request.maxBytes + ANSWER_OVERHEAD
  return new Promise<ConsoleResult>((resolve, reject) => {
    const out: Buffer[] = []
    let size = 0
    let stderr = ''
    let timedOut = false
    let tooLarge = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, request.timeoutMs)
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        tooLarge = true
        child.kill('SIGKILL')
      } else out.push(chunk)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8')
    })
    // A child that died before reading its input closes stdin under us: the exit tells why.
    child.stdin.on('error', () => undefined)
    child.once('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      if (timedOut) return reject(new ConsoleTimeout(request.timeoutMs))
      if (tooLarge) return reject(new ConsoleCrashed('its answer was larger than its limit', ''))
      let answer: ChildAnswer
      try {
        answer = JSON.parse(Buffer.concat(out).toString('utf8')) as ChildAnswer
      } catch {
        const why = /heap out of memory/i.test(stderr)
          ? 'it ran out of memory'
          : `its process ended (${signal ? `signal ${signal}` : `exit code ${code}`})`
        return reject(new ConsoleCrashed(why, stderr.trim()))
      }
      if (answer.ok && answer.result) return resolve(answer.result)
      if (answer.refused) {
        return reject(new ConsoleRefused(answer.refused.reason, answer.refused.table))
      }
      const err = Object.assign(new Error(answer.message ?? ''), { code: answer.code })
      reject(new DbError(answer.message ?? '', err))
    })
    child.stdin.end(
      JSON.stringify({
        driver,
        file,
        busyTimeout,
        sql: request.sql,
        write: request.write,
        maxRows: request.maxRows,
        maxBytes: request.maxBytes,
        frozenSchema: request.frozenSchema,
        readOnlyTables: request.readOnlyTables,
        text: request.text === true,
      }),
    )
  })
}
