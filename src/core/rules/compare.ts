/**
 * Compiles one comparison: NULL/empty semantics of `=`/`!=` (reference §9.2), LIKE wrapping for
 * `~`, and multi-valued operands ("every item" for plain operators, "any" for `?` ones).
 */
import type { ComparisonNode } from '../../tools/filter/index.js'
import type { Dialect } from '../../store/dialect.js'
import { junctionTable } from '../../store/schema.js'
import { column, ident, join, param, raw, sql, type Sql } from '../../store/sql.js'
import type { Field } from '../collections/model.js'
import { coerceOperand, compareConstants, decideByTypeOrder } from './coerce.js'
import { JoinSink, type CompileState, type Operand } from './context.js'
import { isEmptyConstant, isKnownConstant } from './constants.js'
import { noteComparison, tracked } from './junction.js'
import { resolveOperand } from './resolve.js'
import { boolAsNumber, crossesKinds, sqliteComparison, sqliteValue } from './sqlite-values.js'

type BaseOperator = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~' | '!~'

/**
 * `left op right` as a boolean SQL expression over the filter's join scope. With a plain
 * operator and a multi-valued side, no item may violate the condition either.
 */
export function compileComparison(node: ComparisonNode, state: CompileState): Sql {
  const plan = state.junctions
  const field = plan?.mode === 'apply' ? plan.eligible.get(node) : undefined
  if (field) return semiJoin(node, field, state)
  const l = tracked(state.sink, () => resolveOperand(node.left, state, state.sink))
  const r = tracked(state.sink, () => resolveOperand(node.right, state, state.sink))
  const [left, right] = [l.value, r.value]
  noteComparison(state, node, [
    { multi: left.multi === true, keys: l.keys, constant: left.constant },
    { multi: right.multi === true, keys: r.keys, constant: right.constant },
  ])
  const anyOf = node.operator.startsWith('?')
  const op = (anyOf ? node.operator.slice(1) : node.operator) as BaseOperator
  const expr = condition(left, op, right, state.ctx.dialect)
  if (anyOf || (!left.multi && !right.multi)) return expr
  return sql`(${expr} AND ${noViolation(left, op, right, state)})`
}

/**
 * An any-of comparison on a multi-valued field of the main row as a semi-join on the field's
 * junction table (`junction.ts`): the field's `json_each` join is the junction itself.
 */
function semiJoin(node: ComparisonNode, field: Field, state: CompileState): Sql {
  const { ctx } = state
  const rows = state.nextAlias('m')
  const sink = new JoinSink(state)
  // NB: the junction's `value` column is named as `Dialect.jsonEach`'s value, and holds its values.
  sink.preset(`.${field.name}:each`, rows)
  const left = resolveOperand(node.left, state, sink)
  const right = resolveOperand(node.right, state, sink)
  const op = node.operator.slice(1) as BaseOperator
  const expr = condition(left, op, right, ctx.dialect)
  const table = sql`${ident(junctionTable(ctx.collection.id, field.id))} AS ${ident(rows)}`
  const from = sink.clauses.length === 0 ? table : sql`${table} ${join(sink.clauses, ' ')}`
  return sql`${column(ctx.alias, 'id')} IN (SELECT ${column(rows, 'record')} FROM ${from} WHERE ${expr})`
}

/** `NOT EXISTS` an item (from fresh joins of the multi-valued sides) failing the condition. */
function noViolation(left: Operand, op: BaseOperator, right: Operand, state: CompileState): Sql {
  const sink = new JoinSink(state)
  const l = left.rebuild ? left.rebuild(sink) : left
  // NB: the right side gets its own keys, so `a.x = a.y` pairs items independently.
  const r = right.rebuild ? right.rebuild(new JoinSink(state, sink.clauses)) : right
  const cond = condition(l, op, r, state.ctx.dialect)
  return sql`NOT EXISTS (SELECT 1 FROM ${sink.from()} WHERE NOT (${cond}))`
}

/** The row-level condition for one pair of operands. */
function condition(left: Operand, op: BaseOperator, right: Operand, dialect: Dialect): Sql {
  let decidedConstants: Sql | null = null
  if (left.constant && right.constant) {
    // Two bound values have no column to take a type from: compared as SQLite compares them
    // (bools 1/0, a number and a text decided by type order), and an engine that types
    // parameters by their use (PostgreSQL) would compare them as text, so numbers say they are.
    ;({ left, right, decided: decidedConstants } = compareConstants(left, op, right, dialect))
    left = numericConstant(left, dialect)
    right = numericConstant(right, dialect)
  }
  // Constants next to number and bool columns are read as SQLite's NUMERIC affinity reads them.
  const decided = decidedConstants ?? decideByTypeOrder(left, op, right, dialect)
  for (let pass = 0; pass < 2 && op !== '~' && op !== '!~'; pass++) {
    const l = coerceOperand(left, right)
    right = coerceOperand(right, left)
    left = l
  }
  let expr: Sql
  if (decided) expr = decided
  else if (op !== '~' && op !== '!~' && crossesKinds(left, op, right)) {
    // Values of different kinds: compared as SQLite compares them, on every engine.
    ;[left, right] = [boolAsNumber(left), boolAsNumber(right)]
    const native = comparison(left, op, right, dialect)
    const how = sqliteComparison(left, op, right)
    expr = dialect.compareAsSqlite(native, sqliteValue(left), how, sqliteValue(right))
  } else expr = comparison(left, op, right, dialect)
  const guards = [left.guard, right.guard].filter((g): g is Sql => g !== undefined)
  return guards.length === 0 ? expr : sql`(${expr} AND ${join(guards, ' AND ')})`
}

/** `left op right` for operands of comparable types. */
function comparison(left: Operand, op: BaseOperator, right: Operand, dialect: Dialect): Sql {
  let expr: Sql
  switch (op) {
    case '=':
    case '!=':
      expr = equality(left, right, op === '!=', dialect)
      break
    case '~':
    case '!~':
      // NB: LIKE reads both sides as text, the way SQLite writes numbers and bools.
      expr = dialect.like(
        asText(boolAsNumber(left), dialect),
        likePattern(boolAsNumber(right), dialect),
        op === '!~',
      )
      break
    default:
      expr = sql`${left.sql} ${raw(op)} ${right.sql}`
  }
  return expr
}

/** A number constant typed as a number (other operands unchanged). */
function numericConstant(op: Operand, dialect: Dialect): Operand {
  if (op.type !== 'number' || op.constant?.value === null) return op
  return { ...op, sql: dialect.typedNumber(op.sql) }
}

const EMPTY = raw("''")

/**
 * `=` / `!=` where NULL and `''` are the same "empty": `a = ''` ⇔ `a = '' OR a IS NULL`,
 * `!=` uses `IS NOT` so NULLs compare sanely, column vs column is COALESCE'd, JSON is not.
 */
function equality(left: Operand, right: Operand, negate: boolean, dialect: Dialect): Sql {
  if (left.noCoalesce || right.noCoalesce) return dialect.isSame(left.sql, right.sql, negate)
  const leftEmpty = isEmptyConstant(left)
  const rightEmpty = isEmptyConstant(right)
  if (leftEmpty && rightEmpty) return negate ? raw("'' <> ''") : raw("'' = ''")
  const known = leftEmpty ? right : rightEmpty ? left : undefined
  if (known && isKnownConstant(known) && typeof known.constant?.value !== 'string') {
    // An empty constant next to a known number or bool is never equal (a typed engine cannot
    // compare '' with a number); the value stays bound.
    return sql`(${dialect.castText(known.sql)} IS NOT NULL AND ${raw(negate ? '1 = 1' : '1 = 0')})`
  }
  if (isKnownConstant(left) || isKnownConstant(right)) {
    const l = leftEmpty ? EMPTY : left.sql
    const r = rightEmpty ? EMPTY : right.sql
    return negate ? dialect.isSame(l, r, true) : sql`${l} = ${r}`
  }
  if (leftEmpty) return isEmpty(right, negate, dialect)
  if (rightEmpty) return isEmpty(left, negate, dialect)
  if (isTextual(left) && isTextual(right)) {
    const l = sql`COALESCE(${left.sql}, '')`
    const r = sql`COALESCE(${right.sql}, '')`
    return negate ? dialect.isSame(l, r, true) : sql`${l} = ${r}`
  }
  return dialect.isSame(left.sql, right.sql, negate)
}

function isTextual(op: Operand): boolean {
  return op.type === 'text' || op.type === 'any'
}

/** `x = '' OR x IS NULL` (numbers and booleans are never `''`: just the NULL test). */
function isEmpty(op: Operand, negate: boolean, dialect: Dialect): Sql {
  if (op.type === 'number' || op.type === 'bool') {
    return negate ? sql`${op.sql} IS NOT NULL` : sql`${op.sql} IS NULL`
  }
  return negate
    ? sql`(${dialect.isSame(op.sql, EMPTY, true)} AND ${op.sql} IS NOT NULL)`
    : sql`(${op.sql} = '' OR ${op.sql} IS NULL)`
}

/**
 * The right side of `~`: a text constant becomes `%text%` with `\`, `%`, `_` escaped unless it
 * holds an unescaped `%` (then it is a pattern as is); a column is wrapped as `'%' || c || '%'`.
 */
function likePattern(right: Operand, dialect: Dialect): Sql {
  const value = right.constant?.value
  if (right.constant && typeof value === 'string') {
    const pattern = hasUnescapedPercent(value) ? value : `%${escapeLike(value)}%`
    return right.constant.lower ? dialect.lower(param(pattern)) : param(pattern)
  }
  // NB: a number literal is a `%…%` pattern of its text, as PocketBase wraps every bound
  // value of `~` (`views ~ 1` matches 1, 10 and 21).
  if (right.constant && typeof value === 'number') return param(`%${goNumberText(value)}%`)
  // NB: a number pattern as text, as SQLite's LIKE reads it (a typed engine has no LIKE on numbers).
  if (right.constant) {
    if (right.constant.value === null) return right.sql
    return dialect.castText(dialect.sqliteText(sqliteValue(right)))
  }
  return sql`('%' || ${asText(right, dialect)} || '%')`
}

/**
 * A number written as Go writes a float64 with `strconv.FormatFloat(v, 'f', -1, 64)`, which is
 * how PocketBase turns a bound number into a `~` pattern: the shortest exact digits, never an
 * exponent (`1.50` is `1.5`, `1e21` is `1000000000000000000000`, `-0` is `-0`).
 */
export function goNumberText(v: number): string {
  if (Object.is(v, -0)) return '-0'
  const s = String(v)
  const e = s.indexOf('e')
  if (e === -1) return s
  const sign = v < 0 ? '-' : ''
  const mantissa = s.slice(sign.length, e)
  const digits = mantissa.replace('.', '')
  const dot = mantissa.includes('.') ? mantissa.indexOf('.') : mantissa.length
  const point = dot + Number(s.slice(e + 1))
  // NB: JavaScript writes an exponent from 1e21 up and below 1e-6, where the point is outside.
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`
  return `${sign}0.${'0'.repeat(-point)}${digits}`
}

/** A non-constant operand as the text SQLite reads it (text ones as they are). */
function asText(op: Operand, dialect: Dialect): Sql {
  const value = sqliteValue(op)
  return value.kind === 'text' ? op.sql : dialect.sqliteText(value)
}

function hasUnescapedPercent(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === '%') return true
  }
  return false
}

/** Escapes LIKE specials; a backslash already escaping a special is kept as is. */
export function escapeLike(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    const next = text[i + 1]
    if (c === '\\' && next !== undefined && '\\%_'.includes(next)) {
      out += c + next
      i++
    } else if ('\\%_'.includes(c)) {
      out += `\\${c}`
    } else {
      out += c
    }
  }
  return out
}
