/**
 * The SQL console on PostgreSQL (`Store.console`): each statement on a connection of its own
 * (closed after it, so nothing it sets outlives it), sent through the extended protocol so one
 * text is one statement (PostgreSQL refuses several in a prepared statement).
 *
 * Reads run in a `READ ONLY` transaction, with `SET LOCAL statement_timeout`: the statement is a
 * server-side cursor (`DECLARE … NO SCROLL CURSOR FOR`) fetched a few rows at a time up to
 * `maxRows + 1` rows or `maxBytes`, so a huge result is never read whole.
 *
 * Writes hold the app's transaction lock (`PgDb.exclusive`) and run in a transaction that is
 * committed only when the statement left alone what it must: the catalog of the frozen tables
 * (their columns, indexes, constraints, triggers and trigger functions, rules, policies;
 * compared before and after, and any catalog row of theirs written by this transaction, even
 * one changed back, counts) and the rows of the read-only tables (compared by a digest of their
 * rows). Otherwise it is rolled back and refused with `ConsoleRefused`.
 *
 * A statement still running at `timeoutMs` is cancelled by the server (`statement_timeout`, or
 * `pg_cancel_backend` for a read's later fetches); SQLSTATE 57014 becomes `ConsoleTimeout`.
 */
import pg from 'pg'
import {
  ConsoleRefused,
  ConsoleTimeout,
  type ConsoleRequest,
  type ConsoleResult,
} from '../console.js'
import { DbError } from '../db.js'
import { quoteSchema, type PgDb } from './database.js'
import { catalogDigest, changedCatalogOf, rowsDigest } from './console-catalog.js'

/** Rows fetched from a read's cursor at a time. */
const FETCH_ROWS = 20

const { types } = pg

/** Type OIDs read as text rather than as `pg`'s objects, so every value is plain JSON. */
const AS_TEXT = new Set([
  114, // json
  3802, // jsonb
  1082, // date
  1083, // time
  1114, // timestamp
  1184, // timestamptz
  1266, // timetz
  1186, // interval
])
const INT8 = 20
const NUMERIC = 1700

/** A number when it is exact as one, else its text (as the SQLite console answers). */
function exactNumber(v: string): number | string {
  const n = Number(v)
  return Number.isSafeInteger(n) || (Number.isFinite(n) && String(n) === v) ? n : v
}

const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (AS_TEXT.has(oid)) return (v: string) => v
    if (oid === INT8 || oid === NUMERIC) return exactNumber
    return types.getTypeParser(oid, format) as (v: string) => unknown
  },
}

/** A value as JSON carries it: bytes in base64, non-finite numbers as text. */
function jsonValue(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return v.toString('base64')
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v)
  return v
}

/** Column names made unique (a second "a" becomes "a:2"), as the SQLite console does. */
function uniqueNames(names: readonly string[]): string[] {
  const seen = new Map<string, number>()
  return names.map((name) => {
    const n = (seen.get(name) ?? 0) + 1
    seen.set(name, n)
    return n === 1 ? name : `${name}:${n}`
  })
}

/** The text without trailing blanks and semicolons (it is wrapped in a DECLARE). */
function statementText(text: string): string {
  return text.replace(/[\s;]+$/, '')
}

/** A query that counts its rows and keeps none (a write's rows are never answered). */
class CountingQuery extends pg.Query {
  handleDataRow(): void {}
}

/** Translates a failure of the console's statement. */
function failure(err: unknown, timeoutMs: number): Error {
  if (err instanceof ConsoleRefused || err instanceof ConsoleTimeout || err instanceof DbError) {
    return err
  }
  const e = err as { code?: string; message?: string }
  if (e && e.code === '57014') return new ConsoleTimeout(timeoutMs)
  return new DbError(e && typeof e.message === 'string' ? e.message : String(err), err)
}

/** Opens the statement's own connection in the store's schema. */
async function connect(db: PgDb): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: db.options.url,
    types: typeParsers,
    options: `-c search_path=${quoteSchema(db.options.schema)}`,
    application_name: 'svcbase-console',
  })
  client.on('error', () => {})
  await client.connect()
  return client
}

/**
 * Runs one console statement on `db`'s schema (see the module comment). Driver errors reject as
 * a `DbError` with PostgreSQL's message as it is.
 */
export async function runPostgresConsole(
  db: PgDb,
  request: ConsoleRequest,
): Promise<ConsoleResult> {
  const run = async () => {
    let client: pg.Client | null = null
    try {
      client = await connect(db)
      return request.write ? await write(client, request) : await read(db, client, request)
    } catch (err) {
      throw failure(err, request.timeoutMs)
    } finally {
      await client?.end().catch(() => {})
    }
  }
  return request.write ? db.exclusive(run) : run()
}

async function read(db: PgDb, client: pg.Client, request: ConsoleRequest): Promise<ConsoleResult> {
  const deadline = Date.now() + request.timeoutMs
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
  let expired = false
  // The server cancels each statement at the timeout; this bounds all the fetches together.
  const timer = setTimeout(() => {
    expired = true
    db.pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => {})
  }, request.timeoutMs)
  try {
    await client.query('BEGIN READ ONLY')
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, request.timeoutMs)}`)
    const started = performance.now()
    await client.query({
      name: 'svc_console',
      text: `DECLARE svc_console NO SCROLL CURSOR FOR ${statementText(request.sql)}`,
    })
    let columns: string[] | null = null
    const rows: Record<string, unknown>[] = []
    let bytes = 0
    let truncated = false
    for (;;) {
      if (expired || Date.now() >= deadline) throw new ConsoleTimeout(request.timeoutMs)
      const batch = await client.query({
        text: `FETCH FORWARD ${FETCH_ROWS} FROM svc_console`,
        rowMode: 'array',
      })
      columns ??= uniqueNames(batch.fields.map((f) => f.name))
      for (const raw of batch.rows as unknown[][]) {
        if (rows.length >= request.maxRows) {
          truncated = true
          break
        }
        const row: Record<string, unknown> = {}
        for (let i = 0; i < columns.length; i++) row[columns[i]!] = jsonValue(raw[i])
        bytes += JSON.stringify(row).length
        if (bytes > request.maxBytes) {
          truncated = true
          break
        }
        rows.push(row)
      }
      if (truncated || batch.rows.length < FETCH_ROWS) break
    }
    if (expired) throw new ConsoleTimeout(request.timeoutMs)
    const read = { kind: 'read' as const, columns: columns ?? [], rows, truncated }
    return request.text ? { ...read, elapsedMs: performance.now() - started } : read
  } finally {
    clearTimeout(timer)
  }
}

async function write(client: pg.Client, request: ConsoleRequest): Promise<ConsoleResult> {
  const frozen = request.frozenSchema.map((t) => t.toLowerCase())
  await client.query('BEGIN')
  await client.query(`SET LOCAL statement_timeout = ${Math.max(1, request.timeoutMs)}`)
  const before = await catalogDigest(client)
  const rowsBefore = await rowsDigest(client, request.readOnlyTables)
  let result: pg.QueryResult
  const started = performance.now()
  try {
    const query = client.query(new CountingQuery({ text: request.sql, name: 'svc_console' }))
    result = await new Promise<pg.QueryResult>((resolve, reject) => {
      query.on('end', resolve)
      query.on('error', reject)
    })
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  }
  const elapsedMs = performance.now() - started
  const refuse = async (reason: 'schema' | 'rows', table: string) => {
    await client.query('ROLLBACK')
    return new ConsoleRefused(reason, table)
  }
  // NB: after a lone COMMIT or ROLLBACK (it ended the transaction, changing nothing by itself)
  // the checks below run outside one and find nothing changed.
  const after = await catalogDigest(client)
  let schemaChanged = false
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    if (before.get(name) === after.get(name)) continue
    schemaChanged = true
    if (frozen.includes(name.toLowerCase())) throw await refuse('schema', name)
  }
  const touched = await changedCatalogOf(client, frozen)
  if (touched !== null) throw await refuse('schema', touched)
  const rowsAfter = await rowsDigest(client, request.readOnlyTables)
  for (const [table, digest] of rowsBefore) {
    if (rowsAfter.get(table) !== digest) throw await refuse('rows', table)
  }
  await client.query('COMMIT')
  const changes = ['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'COPY'].includes(result.command)
    ? (result.rowCount ?? 0)
    : 0
  const write = { kind: 'write' as const, rowsAffected: changes, schemaChanged }
  return request.text ? { ...write, elapsedMs } : write
}
