/**
 * The `json` field: any JSON value of at most `maxSize` bytes (0 → 1 MiB), stored as JSON text;
 * `null` when unset. A submitted string is read as raw JSON when it looks like JSON.
 */

import type { Field } from '../collections/model.js'
import { fieldError, type FieldError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required } from './generic-errors.js'
import { byteLength, parseJson } from './cast.js'
import { checkInt, collectErrors, numberOption } from './options.js'

/** The effective `maxSize` when the option is 0: 1 MiB. */
export const DEFAULT_JSON_MAX_SIZE = 1 << 20

/** The effective maximum size in bytes of a json field's serialised value. */
export function jsonMaxSize(field: Field): number {
  return numberOption(field, 'maxSize', 0) || DEFAULT_JSON_MAX_SIZE
}

/**
 * Casts a submitted value, reading strings the way PocketBase does for JSON and multipart bodies
 * alike: `null`/`true`/`false` and valid JSON starting with a digit, `-`, `"`, `[` or `{` are raw
 * JSON; any other string (`''` included) is a JSON string.
 */
export function toJsonValue(raw: unknown): unknown {
  if (raw === undefined) return null
  if (typeof raw !== 'string') return raw
  if (raw === 'null') return null
  if (raw === 'true' || raw === 'false') return raw === 'true'
  return /^[-0-9"[{]/.test(raw) ? parseJson(raw, raw) : raw
}

/** True for values JSON represents exactly: finite numbers, strings, booleans, null, lists, plain objects. */
export function isJsonValue(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(value)
    case 'object':
      if (value === null) return true
      if (Array.isArray(value)) return value.every(isJsonValue)
      if (
        Object.getPrototypeOf(value) !== Object.prototype &&
        Object.getPrototypeOf(value) !== null
      ) {
        return false
      }
      return Object.values(value).every(isJsonValue)
    default:
      return false
  }
}

function isEmptyJson(value: unknown): boolean {
  if (value === null || value === '') return true
  if (Array.isArray(value)) return value.length === 0
  return typeof value === 'object' && Object.keys(value).length === 0
}

function validateJson(value: unknown, field: Field): FieldError | null {
  if (!isJsonValue(value))
    return fieldError('validation_invalid_json', 'Must be a valid json value.')
  const maxSize = jsonMaxSize(field)
  if (byteLength(JSON.stringify(value)) > maxSize) {
    return fieldError(
      'validation_json_size_limit',
      'The maximum allowed JSON size is {maxSize} bytes.',
      {
        maxSize,
      },
    )
  }
  return field.required && isEmptyJson(value) ? required() : null
}

/** The `json` field type. */
export const jsonField: FieldType = {
  type: 'json',
  column: () => 'json',
  defaultOptions: () => ({ maxSize: 0 }),
  validateOptions: (field) => collectErrors({ maxSize: checkInt(field, 'maxSize', { min: 0 }) }),
  isMulti: () => false,
  zero: () => null,
  normalize: (raw) => toJsonValue(raw),
  validate: (value, field) => Promise.resolve(validateJson(value, field)),
  toDb: (value) => (value === null || value === undefined ? null : JSON.stringify(value)),
  // NB: expects JSON text (SQLite); already-decoded values (a PostgreSQL jsonb driver) pass through.
  fromDb: (raw) => (typeof raw === 'string' ? parseJson(raw, raw) : (raw ?? null)),
}
