import type { App } from '../../core/app.js'
import { databaseOf } from '../../core/collections/model.js'
import { wantedJunctions } from '../../core/collections/schema-sync.js'
import {
  ApiError,
  badRequest,
  internal,
  messages,
  validationError,
  type ValidationErrors,
} from '../../core/errors.js'
import {
  ConsoleCrashed,
  ConsolePragmaRefused,
  ConsoleRefused,
  ConsoleTimeout,
  type ConsoleResult,
} from '../../store/console.js'
import { DbError, UniqueViolation } from '../../store/db.js'
import { head, refusedConstruct } from './guard.js'
import { isPbReadText, pbAnswer, pbDriverText, type PbSqlAnswer } from './pocketbase.js'

/** SPEC §8: a read answers at most 500 rows (`truncated: true` when more existed). */
export const SQL_MAX_ROWS = 500
/** SPEC §8: a statement still running after 10 s is cancelled. */
export const SQL_TIMEOUT_MS = 10_000
/** Bytes of row values (as JSON) a read answers at most; the rows past it are cut. */
export const SQL_MAX_BYTES = 8 * 1024 * 1024
/** Statements running at once; one more is answered 429. */
export const SQL_MAX_RUNNING = 2
/** The longest SQL text accepted, in characters. */
export const SQL_MAX_LENGTH = 100_000

/** svcbase's own tables that are no collection: their schema and rows are left alone. */
const OWN_TABLES = ['_collections', '_params']

/** Limits of a console (the defaults are SPEC §8's). */
export interface SqlConsoleOptions {
  timeoutMs?: number
  maxRows?: number
  maxBytes?: number
  maxRunning?: number
}

/** A validated request. */
export interface SqlInput {
  sql: string
  write: boolean
}

/** The answers of SPEC §4.14. */
export type SqlAnswer =
  | { columns: string[]; rows: Record<string, unknown>[]; truncated: boolean }
  | { rowsAffected: number }

/** Reads `{sql, write}`: 400 with field errors for a missing, empty or mistyped value. */
export function parseSqlInput(values: Record<string, unknown>): SqlInput {
  const errors: ValidationErrors = {}
  const { sql, write = false } = values
  if (sql === undefined || sql === null || (typeof sql === 'string' && sql.trim() === '')) {
    errors.sql = validationError('validation_required')
  } else if (typeof sql !== 'string') {
    errors.sql = validationError('validation_invalid_value:string')
  } else if (sql.length > SQL_MAX_LENGTH) {
    errors.sql = validationError('validation_length_too_long', { max: SQL_MAX_LENGTH })
  }
  if (typeof write !== 'boolean') errors.write = validationError('validation_invalid_value:boolean')
  if (Object.keys(errors).length > 0) throw badRequest(messages.validationFailed, errors)
  return { sql: sql as string, write: write as boolean }
}

/** SPEC §4.14 rule 1: a read starts, after trimming and upper-casing, with SELECT or WITH. */
export function isReadText(text: string): boolean {
  const s = text.trim().toUpperCase()
  return s.startsWith('SELECT') || s.startsWith('WITH')
}

/** A write that would reach files outside the data: ATTACH, DETACH, VACUUM … INTO. */
export function writesFiles(text: string): boolean {
  const s = head(text)
  return /^(ATTACH|DETACH)\b/.test(s) || /^VACUUM\b[\s\S]*\bINTO\b/.test(s)
}

/**
 * The SQL console of SPEC §4.14: checks, limits (at most `maxRunning` statements at once), then
 * the store runs the statement on a connection of its own, cancelled at `timeoutMs`.
 */
export class SqlConsole {
  private running = 0
  private readonly timeoutMs: number
  private readonly maxRows: number
  private readonly maxBytes: number
  private readonly maxRunning: number

  constructor(
    private readonly app: App,
    options: SqlConsoleOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? SQL_TIMEOUT_MS
    this.maxRows = options.maxRows ?? SQL_MAX_ROWS
    this.maxBytes = options.maxBytes ?? SQL_MAX_BYTES
    this.maxRunning = options.maxRunning ?? SQL_MAX_RUNNING
  }

  async run(input: SqlInput): Promise<SqlAnswer> {
    if (!input.write && !isReadText(input.sql)) throw badRequest(messages.sqlReadOnlyPrefix)
    const result = await this.execute(input.sql, input.write, false)
    if (result.kind === 'read') {
      return { columns: result.columns, rows: result.rows, truncated: result.truncated }
    }
    return { rowsAffected: result.rowsAffected }
  }

  /**
   * PocketBase's `POST /api/sql` (`pocketbase.ts`): a statement that answers rows runs as a read,
   * any other as a write, both under the console's guards and limits (a read is cut at the row
   * cap); driver errors worded as PocketBase words them.
   */
  async runPocketBase(query: string): Promise<PbSqlAnswer> {
    const started = performance.now()
    const result = await this.execute(query, !isPbReadText(query), true)
    return pbAnswer(result, result.elapsedMs ?? performance.now() - started)
  }

  /** Checks, limits and runs one statement; `pocketbase` words driver errors as PocketBase. */
  private async execute(sql: string, write: boolean, pocketbase: boolean): Promise<ConsoleResult> {
    const input = { sql, write }
    if (input.write && writesFiles(input.sql)) throw badRequest(messages.sqlFileRefused)
    const refused = refusedConstruct(input.sql)
    if (refused !== null) throw badRequest(messages.sqlConstructRefused({ what: refused }))
    if (this.running >= this.maxRunning) throw new ApiError(429, messages.sqlBusy)
    this.running++
    let result: ConsoleResult
    try {
      const tables = this.app.collections.all().filter((c) => databaseOf(c) === 'main')
      const collections = tables.map((c) => c.name)
      // NB: junction tables (kept by triggers) must not be dropped or altered from here either.
      const junctions = tables.flatMap((c) => wantedJunctions(c).map((j) => j.name))
      result = await this.app.store.console({
        sql: input.sql,
        write: input.write,
        maxRows: this.maxRows,
        maxBytes: this.maxBytes,
        timeoutMs: this.timeoutMs,
        frozenSchema: [...OWN_TABLES, ...collections, ...junctions],
        readOnlyTables: OWN_TABLES,
        text: pocketbase,
      })
    } catch (err) {
      throw this.failure(err, pocketbase)
    } finally {
      this.running--
    }
    // Any committed console write may have changed an auth record (a deleted superuser, a new
    // tokenKey): no token verified before it is trusted from the cache any more.
    if (input.write) this.app.services.find('authCache')?.clear()
    return result
  }

  /**
   * The 400 of a failed statement: the driver's message verbatim (SPEC §4.14 rule 3), or for
   * PocketBase's endpoint as PocketBase words it.
   */
  private failure(err: unknown, pocketbase: boolean): ApiError {
    if (err instanceof ConsoleTimeout) {
      return badRequest(messages.sqlTimeout({ seconds: Math.round(err.timeoutMs / 100) / 10 }))
    }
    if (err instanceof ConsolePragmaRefused) {
      return badRequest(messages.sqlPragmaRefused({ name: err.pragma, allowed: err.allowed }))
    }
    if (err instanceof ConsoleRefused) {
      return badRequest(
        err.reason === 'schema'
          ? messages.sqlSchemaRefused({ table: err.table })
          : messages.sqlRowsRefused({ table: err.table }),
      )
    }
    if (err instanceof DbError || err instanceof UniqueViolation) {
      const cause = err.cause instanceof Error ? err.cause.message : err.message
      if (pocketbase) {
        const code = (err.cause as { code?: unknown } | undefined)?.code
        return badRequest(
          messages.sqlQueryFailed({ reason: pbDriverText(cause || err.message, code) }),
        )
      }
      return badRequest(messages.sqlDriverError({ reason: cause || err.message }))
    }
    if (err instanceof ConsoleCrashed) {
      return badRequest(messages.sqlFailed({ reason: err.reason }), {}, err.detail || undefined)
    }
    return internal(err)
  }
}
