/**
 * Constants compared with number and bool columns, read the way SQLite's NUMERIC affinity reads
 * them, so a filter means the same on every engine and a strictly typed one (PostgreSQL) never
 * fails on it: text that looks like a number is that number, `true`/`false` next to a number are
 * 1/0, and text that does not look like a number sorts after every number.
 */
import type { Dialect } from '../../store/dialect.js'
import { sql, type Sql } from '../../store/sql.js'
import { constant } from './constants.js'
import type { Operand } from './context.js'

/** Text SQLite's NUMERIC affinity turns into a number. */
const numeric = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/

/** A stored value of a number or bool column (bools are 0/1 on SQLite). */
function numberColumn(op: Operand): boolean {
  return op.constant === undefined && (op.type === 'number' || op.type === 'bool')
}

/** A text constant that does not read as a number. */
function nonNumericText(op: Operand): boolean {
  const v = op.constant?.value
  return typeof v === 'string' && !numeric.test(v)
}

/**
 * The comparison of a number or bool column with text that is no number, decided as SQLite
 * orders values (every number before every text): `=` never holds, `!=` always does, and the
 * column is below the text whenever it has a value. Null when the operands are not such a pair.
 * `''` under `=`/`!=` is left to the empty-value rules.
 */
export function decideByTypeOrder(
  left: Operand,
  op: string,
  right: Operand,
  dialect: Dialect,
): Sql | null {
  const columnLeft = numberColumn(left) && nonNumericText(right)
  const columnRight = numberColumn(right) && nonNumericText(left)
  if (!columnLeft && !columnRight) return null
  const text = columnLeft ? right : left
  if ((op === '=' || op === '!=') && text.constant?.value === '') return null
  const column = columnLeft ? left : right
  // NB: both operands stay in the SQL, the text still a bound parameter (never spliced).
  const below = sql`${column.sql} IS NOT NULL`
  const never = sql`(${column.sql} IS NOT NULL AND 1 = 0)`
  let decided: Sql
  switch (op) {
    case '=':
      decided = never
      break
    case '!=':
      decided = sql`(${column.sql} IS NULL OR 1 = 1)`
      break
    case '<':
    case '<=':
      decided = columnLeft ? below : never
      break
    case '>':
    case '>=':
      decided = columnLeft ? never : below
      break
    default:
      return null
  }
  return sql`(${dialect.castText(text.sql)} IS NOT NULL AND ${decided})`
}

/**
 * `op` coerced for a comparison with `other`: a constant next to a number or bool column becomes
 * a number when SQLite would read it as one; a bool column next to a number constant is read as
 * 1/0 (NULL stays NULL).
 */
export function coerceOperand(op: Operand, other: Operand): Operand {
  const value = op.constant?.value
  if (op.constant !== undefined && numberColumn(other)) {
    if (typeof value === 'string' && numeric.test(value)) return constant(Number(value))
    if (typeof value === 'boolean' && other.type === 'number') return constant(value ? 1 : 0)
    return op
  }
  if (numberColumn(op) && op.type === 'bool' && typeof other.constant?.value === 'number') {
    const asNumber = sql`(CASE WHEN ${op.sql} THEN 1 WHEN NOT ${op.sql} THEN 0 END)`
    return { ...op, sql: asNumber, type: 'number' }
  }
  return op
}
