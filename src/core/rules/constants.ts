/** Operands whose value is known at compile time: literals, macros and `@request.*` values. */
import { formatDate } from '../../tools/dates.js'
import type { Dialect } from '../../store/dialect.js'
import { param, raw, type Sql } from '../../store/sql.js'
import type { Operand, ValueType } from './context.js'

/** A value as it can be bound: objects and arrays become JSON text, `undefined` NULL. */
export function bindable(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Date) return formatDate(value)
  return JSON.stringify(value)
}

/** The SQL of a bindable value: `NULL` as text, anything else as a parameter. */
export function valueSql(value: string | number | boolean | null): Sql {
  return value === null ? raw('NULL') : param(value)
}

function typeOf(value: string | number | boolean | null): ValueType {
  if (typeof value === 'number') return 'number'
  if (typeof value === 'boolean') return 'bool'
  return typeof value === 'string' ? 'text' : 'any'
}

/** A constant operand: its value bound as a parameter (`NULL` as text). */
export function constant(value: unknown): Operand {
  const v = bindable(value)
  return { sql: valueSql(v), type: typeOf(v), constant: { value: v } }
}

/** A constant lower-cased by the dialect (`LOWER(?)`), as the column side of `:lower` is. */
export function lowerConstant(value: unknown, dialect: Dialect): Operand {
  const v = bindable(value)
  return { sql: dialect.lower(valueSql(v)), type: 'text', constant: { value: v, lower: true } }
}

/** True for the constants `=` treats as "empty": NULL and `''`. */
export function isEmptyConstant(op: Operand): boolean {
  return op.constant !== undefined && (op.constant.value === null || op.constant.value === '')
}

/** True for constants known not to be empty. */
export function isKnownConstant(op: Operand): boolean {
  return op.constant !== undefined && !isEmptyConstant(op)
}
