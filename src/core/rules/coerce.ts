/**
 * Constants compared with number and bool columns, read the way SQLite's NUMERIC affinity reads
 * them, so a filter means the same on every engine and a strictly typed one (PostgreSQL) never
 * fails on it: text that looks like a number is that number, `true`/`false` next to a number are
 * 1/0, and text that does not look like a number sorts after every number.
 */
import type { Dialect } from '../../store/dialect.js'
import { raw, sql, type Sql } from '../../store/sql.js'
import { constant } from './constants.js'
import type { Operand } from './context.js'

/** Text SQLite's NUMERIC affinity turns into a number. */
const numeric = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/

/**
 * A stored value of a number or bool column (bools are 0/1 on SQLite). NB: only a column has
 * NUMERIC affinity; a computed number (`tags:length`, `geoDistance(…)`) reads no text as a number,
 * so `tags:length = "2"` holds nowhere, as on SQLite.
 */
function numberColumn(op: Operand): boolean {
  return (
    op.constant === undefined &&
    (op.type === 'number' || op.type === 'bool') &&
    op.affinity === 'numeric'
  )
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
 * Two constants as SQLite compares bound values (no affinity): a bool is 1/0 (two bools stay
 * bools), and a number and a
 * text are never equal, the number sorting first. Returns the pair with bools made numbers and,
 * for a number next to a text, the comparison decided (both values still bound, never spliced),
 * so a strictly typed engine (PostgreSQL) never casts one to the other's type. `''` under
 * `=`/`!=` and NULL are left to the empty-value rules.
 */
export function compareConstants(
  left: Operand,
  op: string,
  right: Operand,
  dialect: Dialect,
): { left: Operand; right: Operand; decided: Sql | null } {
  const asNumber = (o: Operand, other: Operand) =>
    typeof o.constant?.value === 'boolean' && typeof other.constant?.value !== 'boolean'
      ? constant(o.constant.value ? 1 : 0)
      : o
  ;[left, right] = [asNumber(left, right), asNumber(right, left)]
  const l = left.constant?.value
  const r = right.constant?.value
  const mixed =
    (typeof l === 'number' && typeof r === 'string') ||
    (typeof l === 'string' && typeof r === 'number')
  if (!mixed || ((op === '=' || op === '!=') && (l === '' || r === ''))) {
    return { left, right, decided: null }
  }
  const numberLeft = typeof l === 'number'
  let holds: boolean
  switch (op) {
    case '=':
      holds = false
      break
    case '!=':
      holds = true
      break
    case '<':
    case '<=':
      holds = numberLeft
      break
    case '>':
    case '>=':
      holds = !numberLeft
      break
    default:
      return { left, right, decided: null }
  }
  const bound = sql`${dialect.castText(left.sql)} IS NOT NULL AND ${dialect.castText(right.sql)} IS NOT NULL`
  return { left, right, decided: sql`(${bound} AND ${raw(holds ? '1 = 1' : '1 = 0')})` }
}

/**
 * `op` coerced for a comparison with `other`: a constant next to a number or bool column becomes
 * a number when SQLite would read it as one; a bool column next to a number constant or column is
 * read as 1/0 (NULL stays NULL).
 */
export function coerceOperand(op: Operand, other: Operand): Operand {
  const value = op.constant?.value
  if (op.constant !== undefined && numberColumn(other)) {
    if (typeof value === 'string' && numeric.test(value)) return constant(Number(value))
    if (typeof value === 'boolean' && other.type === 'number') return constant(value ? 1 : 0)
    return op
  }
  const otherNumber =
    typeof other.constant?.value === 'number' ||
    (other.constant === undefined && other.type === 'number')
  if (numberColumn(op) && op.type === 'bool' && otherNumber) {
    // NB: 1.0/0.0, so a typed engine compares with any number, not only integers.
    const asNumber = sql`(CASE WHEN ${op.sql} THEN 1.0 WHEN NOT ${op.sql} THEN 0.0 END)`
    return { ...op, sql: asNumber, type: 'number', affinity: undefined }
  }
  return op
}
