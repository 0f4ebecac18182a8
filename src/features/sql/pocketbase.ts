/**
 * PocketBase 0.40.4's own `POST /api/sql`, served at the same path as SPEC §4.14's console and
 * told apart by the body: `{query}` (or a body with neither `sql` nor `write`) is PocketBase's,
 * answered `{execTime, affectedRows, columns: [{name, type, nullable}], rows: [[text…]]}`. It
 * runs under the console's guards: one statement, reads on a read-only connection, writes with
 * the frozen tables left alone, the same time budget and row cap.
 */
import { badRequest, messages, validationError } from '../../core/errors.js'
import type { ConsoleRead, ConsoleResult } from '../../store/console.js'
import { head } from './guard.js'

/** PocketBase's answer. */
export interface PbSqlAnswer {
  execTime: number
  affectedRows: number
  columns: Array<{ name: string; type: string; nullable: boolean }>
  rows: Array<Array<string | null>>
}

/** True for a body meant for PocketBase's endpoint rather than SPEC §4.14's console. */
export function isPocketBaseBody(values: Record<string, unknown>): boolean {
  return (
    Object.hasOwn(values, 'query') ||
    !(Object.hasOwn(values, 'sql') || Object.hasOwn(values, 'write'))
  )
}

/**
 * PocketBase's checks of `{query}`: missing, null or `""` is `validation_required`; another type
 * fails the body's loading; blanks only are the driver's "empty query".
 */
export function parsePbQuery(values: Record<string, unknown>, maxLength: number): string {
  const { query } = values
  if (query === undefined || query === null || query === '') {
    throw badRequest(messages.validationFailed, { query: validationError('validation_required') })
  }
  if (typeof query !== 'string') throw badRequest(messages.loadFailed)
  if (query.length > maxLength) {
    throw badRequest(messages.validationFailed, {
      query: validationError('validation_length_too_long', { max: maxLength }),
    })
  }
  if (head(query) === '') throw badRequest(messages.sqlQueryFailed({ reason: 'empty query' }))
  return query
}

/**
 * A statement answered with rows (PocketBase queries it); any other runs as a write (PocketBase
 * executes it and answers the rows it changed).
 */
export function isPbReadText(text: string): boolean {
  return /^(SELECT|WITH|VALUES|PRAGMA|EXPLAIN)\b/.test(head(text))
}

/** A JSON value of a read's row as PocketBase prints it (engines that give no text of their own). */
function asText(v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v)
  return JSON.stringify(v)
}

function textOf(read: ConsoleRead): NonNullable<ConsoleRead['text']> {
  if (read.text) return read.text
  return {
    columns: read.columns.map((name) => ({ name, type: '' })),
    rows: read.rows.map((row) => read.columns.map((c) => asText(row[c]))),
  }
}

/** The answer of a statement run in `ms` milliseconds. */
export function pbAnswer(result: ConsoleResult, ms: number): PbSqlAnswer {
  const execTime = Math.floor(ms)
  if (result.kind === 'write') {
    return { execTime, affectedRows: result.rowsAffected, columns: [], rows: [] }
  }
  const text = textOf(result)
  return {
    execTime,
    affectedRows: 0,
    columns: text.columns.map((c) => ({ name: c.name, type: c.type, nullable: true })),
    rows: text.rows,
  }
}

/** SQLite's primary result codes: number and `sqlite3_errstr` text. */
const SQLITE_PRIMARY: Record<string, [number, string]> = {
  SQLITE_ERROR: [1, 'SQL logic error'],
  SQLITE_PERM: [3, 'access permission denied'],
  SQLITE_ABORT: [4, 'query aborted'],
  SQLITE_BUSY: [5, 'database is locked'],
  SQLITE_LOCKED: [6, 'database table is locked'],
  SQLITE_NOMEM: [7, 'out of memory'],
  SQLITE_READONLY: [8, 'attempt to write a readonly database'],
  SQLITE_INTERRUPT: [9, 'interrupted'],
  SQLITE_IOERR: [10, 'disk I/O error'],
  SQLITE_CORRUPT: [11, 'database disk image is malformed'],
  SQLITE_FULL: [13, 'database or disk is full'],
  SQLITE_CANTOPEN: [14, 'unable to open database file'],
  SQLITE_SCHEMA: [17, 'database schema has changed'],
  SQLITE_TOOBIG: [18, 'string or blob too big'],
  SQLITE_CONSTRAINT: [19, 'constraint failed'],
  SQLITE_MISMATCH: [20, 'datatype mismatch'],
  SQLITE_MISUSE: [21, 'bad parameter or other API misuse'],
  SQLITE_AUTH: [23, 'authorization denied'],
  SQLITE_RANGE: [25, 'column index out of range'],
  SQLITE_NOTADB: [26, 'file is not a database'],
}

/** SQLite's extended result codes seen from a console statement: their numbers. */
const SQLITE_EXTENDED: Record<string, number> = {
  SQLITE_CONSTRAINT_CHECK: 275,
  SQLITE_CONSTRAINT_FOREIGNKEY: 787,
  SQLITE_CONSTRAINT_FUNCTION: 1043,
  SQLITE_CONSTRAINT_NOTNULL: 1299,
  SQLITE_CONSTRAINT_PRIMARYKEY: 1555,
  SQLITE_CONSTRAINT_TRIGGER: 1811,
  SQLITE_CONSTRAINT_UNIQUE: 2067,
  SQLITE_CONSTRAINT_ROWID: 2579,
  SQLITE_CONSTRAINT_DATATYPE: 3091,
  SQLITE_READONLY_DBMOVED: 1032,
  SQLITE_BUSY_TIMEOUT: 773,
  SQLITE_BUSY_SNAPSHOT: 517,
  SQLITE_ERROR_MISSING_COLLSEQ: 257,
}

/**
 * A driver error as PocketBase's SQLite driver words it (`<errstr>: <message> (<code>)`) when its
 * SQLite result code is known; else the engine's message as it is.
 */
export function pbDriverText(message: string, code: unknown): string {
  if (typeof code !== 'string') return message
  const primaryName = Object.keys(SQLITE_PRIMARY).find(
    (p) => code === p || code.startsWith(`${p}_`),
  )
  if (!primaryName) return message
  const [primary, errstr] = SQLITE_PRIMARY[primaryName]!
  const number = code === primaryName ? primary : SQLITE_EXTENDED[code]
  if (number === undefined) return message
  return message === errstr ? `${errstr} (${number})` : `${errstr}: ${message} (${number})`
}
