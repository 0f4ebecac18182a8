/**
 * PostgreSQL driver errors as the store's: unique violations by their columns, values the engine
 * refused to evaluate (`DbError` of kind `type`), statements the read budget stopped
 * (`ReadTimeout`), the rest as `DbError`.
 */
import { DbError, NoRowWritten, ReadTimeout, UniqueViolation } from '../db.js'

/**
 * What a write that had to write a row fails with when it wrote none (`mustWriteSql`): the text
 * PostgreSQL cannot read as a boolean, so its error names it.
 */
export const NO_ROW_WRITTEN = 'svc_no_row_written'

/**
 * `write` (an INSERT, UPDATE or DELETE without RETURNING) as one statement that fails when it
 * wrote no row: the cast of the marker text to boolean is evaluated only then.
 */
export function mustWriteSql(write: string): string {
  return `WITH svc_written AS (${write} RETURNING 1) SELECT CAST(CASE WHEN EXISTS (SELECT 1 FROM svc_written) THEN 'true' ELSE '${NO_ROW_WRITTEN}' END AS BOOLEAN)`
}

/** The `statement_timeout` a translated error's connection had, when known (`PgDb.query`). */
const budgets = new WeakMap<object, number>()
function budgetOf(err: object): number {
  return budgets.get(err) ?? 0
}

/** Notes the `statement_timeout` of the connection a failed query ran on, for its translation. */
export function noteReadBudget(err: unknown, ms: number): void {
  if (err && typeof err === 'object') budgets.set(err, ms)
}

/**
 * SQLSTATEs of values a query cannot take: every data exception (class 22: invalid text for a
 * type, out of range, a bad date, a NUL in text, a negative square root…), no operator or
 * function for the operand types, mismatched types.
 */
const typeErrors = (code: string): boolean =>
  code.startsWith('22') || code === '42883' || code === '42804' || code === '42725'

/** Translates a driver error: unique violations by their columns, the rest as `DbError`. */
export function translatePgError(err: unknown): Error {
  if (err instanceof UniqueViolation || err instanceof DbError || err instanceof NoRowWritten)
    return err
  const e = err as { code?: string; table?: string; detail?: string; message?: string }
  if (e && e.code === '22P02' && e.message?.includes(`"${NO_ROW_WRITTEN}"`)) {
    return new NoRowWritten(err)
  }
  if (e && e.code === '23505') {
    return new UniqueViolation(e.table ?? '', uniqueColumns(e.detail ?? ''), err)
  }
  // query_canceled by `statement_timeout`: the read budget (`PgDb.setReadBudget`)
  if (e && e.code === '57014' && /statement timeout/.test(e.message ?? '')) {
    return new ReadTimeout(budgetOf(e), err, e.message)
  }
  const message = e && typeof e.message === 'string' ? e.message : String(err)
  return new DbError(message, err, typeErrors(e?.code ?? '') ? 'type' : null)
}

/**
 * The column names of a unique violation's detail: `Key (email)=(a@b.c) already exists.` or,
 * for an expression index, `Key (lower(email::text))=(…)`; casts, calls and quotes are peeled.
 */
export function uniqueColumns(detail: string): string[] {
  const m = /^Key \((.*)\)=\(/s.exec(detail)
  if (!m) return []
  const names = new Set<string>()
  for (const found of m[1]!.matchAll(/"((?:[^"]|"")+)"|\b([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*\()/g)) {
    const name = found[1] !== undefined ? found[1].replaceAll('""', '"') : found[2]!
    if (found[2] !== undefined && /^(text|varchar|jsonb?|integer|bigint|numeric)$/i.test(name)) {
      continue
    }
    names.add(name)
  }
  return [...names]
}
