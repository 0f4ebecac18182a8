/** The `date` field: a UTC datetime string (`YYYY-MM-DD HH:MM:SS.sssZ`), `''` when unset. */

import type { Field } from '../collections/model.js'
import { type FieldError, validationError } from '../errors.js'
import { normalizeDate, parseDate } from '../../tools/dates.js'
import type { FieldType } from './field-type.js'
import { describeValue, maxThreshold, minThreshold, required, wrongType } from './generic-errors.js'
import { parseGoDate } from './go-time.js'
import { collectErrors, stringOption } from './options.js'

/** Casts any accepted date input (canonical, RFC 3339, `YYYY-MM-DD`, unix seconds) or `''`. */
export function toDateValue(raw: unknown): string {
  // The common case (values we produced ourselves) needs no parsing.
  if (typeof raw === 'string' && CANONICAL.test(raw) && roundTrips(raw)) return raw
  return normalizeDate(raw)
}

/**
 * A submitted value as PocketBase reads it (go-time.ts): text in one of Go's layouts becomes the
 * canonical date; anything else (`"yesterday"`, `"2024-02-30"`, `1700000000`, `{}`) is no date,
 * `''`, as in PocketBase.
 */
function castDate(raw: unknown): string {
  if (raw instanceof Date) return normalizeDate(raw)
  if (typeof raw !== 'string') return ''
  // The common case (values we produced ourselves) needs no parsing.
  if (CANONICAL.test(raw) && roundTrips(raw)) return raw === GO_ZERO ? '' : raw
  return parseGoDate(raw)
}

/** Go's zero time, which PocketBase shows as no date. */
const GO_ZERO = '0001-01-01 00:00:00.000Z'

/** `validation_date_invalid` for a submitted value that is not a date. */
function invalidDate(value: unknown): FieldError {
  return validationError('validation_date_invalid:actual', { actual: describeValue(value) })
}

/** True when a canonical-looking date is a real one (2024-02-31 is not). */
function roundTrips(v: string): boolean {
  const year = Number(v.slice(0, 4))
  const month = Number(v.slice(5, 7))
  const day = Number(v.slice(8, 10))
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return day <= (month === 2 ? (leap ? 29 : 28) : DAYS_IN_MONTH[month - 1]!)
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** The canonical layout `YYYY-MM-DD HH:MM:SS.sssZ` with plausible field ranges. */
const CANONICAL =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/

/** Reads a stored date column: canonical text passes through, other values are normalised. */
export function dateFromDb(raw: unknown): string {
  if (raw === null || raw === undefined) return ''
  return typeof raw === 'string' ? raw : normalizeDate(raw)
}

function checkBound(field: Field, key: 'min' | 'max'): FieldError | null {
  const v = field.options[key]
  if (v === undefined || v === null || v === '') return null
  if (typeof v !== 'string' || parseDate(v) === null) {
    return validationError('validation_date_invalid')
  }
  if (key === 'max') {
    const min = parseDate(stringOption(field, 'min'))
    if (min && parseDate(v)! < min) {
      return validationError('validation_date_out_of_range')
    }
  }
  return null
}

function validateDate(value: string, field: Field): FieldError | null {
  if (value === '') return field.required ? required() : null
  const d = parseDate(value)
  if (d === null) return invalidDate(value)
  const min = parseDate(stringOption(field, 'min'))
  if (min && d < min) return goThreshold(minThreshold(goTimeString(min)), min)
  const max = parseDate(stringOption(field, 'max'))
  if (max && d > max) return goThreshold(maxThreshold(goTimeString(max)), max)
  return null
}

/** A time as Go prints it (`2020-01-01 00:00:00.5 +0000 UTC`), as PocketBase's message shows it. */
function goTimeString(d: Date): string {
  const [day, time] = normalizeDate(d).slice(0, -1).split(' ') as [string, string]
  return `${day} ${time.replace(/\.?0+$/, '')} +0000 UTC`
}

/** A threshold error with PocketBase's param: the time in RFC 3339 (`2020-01-01T00:00:00Z`). */
function goThreshold(error: FieldError, d: Date): FieldError {
  return { ...error, params: { threshold: d.toISOString().replace(/\.?0+Z$/, 'Z') } }
}

/** The `date` field type. */
export const dateField: FieldType = {
  type: 'date',
  column: () => 'text',
  defaultOptions: () => ({ min: '', max: '' }),
  validateOptions: (field) =>
    collectErrors({ min: checkBound(field, 'min'), max: checkBound(field, 'max') }),
  isMulti: () => false,
  zero: () => '',
  normalize: castDate,
  validate(value, field) {
    if (typeof value === 'object' && value !== null) {
      return Promise.resolve(wrongType('a date string', value))
    }
    if (typeof value !== 'string') return Promise.resolve(invalidDate(value))
    return Promise.resolve(validateDate(value, field))
  },
  toDb: (value) => toDateValue(value),
  fromDb: (raw) => dateFromDb(raw),
}
