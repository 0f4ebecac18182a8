/**
 * Operands as SQLite types them (SQLite is the reference engine): which comparisons put values
 * of different kinds side by side, and each operand's SQLite kind and affinity, so the dialect
 * can compare them as SQLite does (`Dialect.compareAsSqlite`).
 */
import type { SqliteComparison, SqliteKind, SqliteValue } from '../../store/dialect.js'
import { constant, isEmptyConstant, isKnownConstant } from './constants.js'
import type { Operand } from './context.js'

/** The operand as SQLite types it. */
export function sqliteValue(op: Operand): SqliteValue {
  return { sql: op.sql, kind: sqliteKind(op), affinity: op.affinity ?? null, json: op.json }
}

function sqliteKind(op: Operand): SqliteKind {
  if (op.constant) {
    const v = op.constant.value
    // NB: a bound JavaScript number is a REAL on SQLite (better-sqlite3), bools are 1/0.
    return typeof v === 'number' || typeof v === 'boolean' ? 'real' : 'text'
  }
  switch (op.type) {
    case 'number':
      return op.integer ? 'integer' : op.affinity === 'numeric' ? 'numeric' : 'real'
    case 'bool':
      return 'bool'
    case 'json':
      return op.json ? 'json' : 'text'
    default:
      return 'text'
  }
}

/** The kind family an operand compares in natively on every engine. */
function family(op: Operand): 'text' | 'number' | 'bool' | 'json' {
  if (op.constant) {
    const v = op.constant.value
    return typeof v === 'string' ? 'text' : typeof v === 'boolean' ? 'bool' : 'number'
  }
  if (op.type === 'json') return op.json ? 'json' : 'text'
  if (op.type === 'number' || op.type === 'bool') return op.type
  return 'text'
}

/**
 * True when `left op right` sets values of different kinds side by side (or a JSON value, whose
 * kind is the document's), so engines differ unless the dialect compares them as SQLite does.
 * Same-kind comparisons (`title = 'x'`, `n > 5`) and the empty-value tests of `=`/`!=` stay as
 * they are; two constants are decided before.
 */
export function crossesKinds(left: Operand, op: string, right: Operand): boolean {
  if (left.constant && right.constant) return false
  // NB: items of a request array (`@request.body.x:each`) are typed on SQLite, text elsewhere:
  // next to a constant they compare as the engine compares them (`?= 7` matches a 7 on both).
  if ((requestItem(left) && right.constant) || (requestItem(right) && left.constant)) return false
  if (left.constant?.value === null || right.constant?.value === null) return false
  // NB: `=`/`!=` with '' test for an empty value, unless a side is compared as is (JSON,
  // geoDistance: `IS`), where '' is a text like any other.
  const emptyTest = !left.noCoalesce && !right.noCoalesce
  if ((op === '=' || op === '!=') && emptyTest && (isEmptyConstant(left) || isEmptyConstant(right)))
    return false
  const l = family(left)
  const r = family(right)
  return l === 'json' || r === 'json' || l !== r
}

/** An item of a request value's array: its kind is unknown until it is read. */
function requestItem(op: Operand): boolean {
  return op.type === 'any' && !op.fromColumn
}

/** The comparison SQLite runs for `op` between these operands (see compare.ts `equality`). */
export function sqliteComparison(left: Operand, op: string, right: Operand): SqliteComparison {
  if (op === '!=') return 'IS NOT'
  if (op !== '=') return op as SqliteComparison
  const isSame =
    left.noCoalesce || right.noCoalesce || !(isKnownConstant(left) || isKnownConstant(right))
  return isSame ? 'IS' : '='
}

/** A bool constant as the number SQLite binds (1/0): the same parameter, typed as a number. */
export function boolAsNumber(op: Operand): Operand {
  const v = op.constant?.value
  return typeof v === 'boolean' ? constant(v ? 1 : 0) : op
}
