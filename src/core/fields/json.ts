/**
 * The `json` field: any JSON value of at most `maxSize` bytes (0 → 1 MiB) and at most
 * {@link MAX_JSON_DEPTH} levels of nesting, stored as JSON text; `null` when unset. A submitted
 * string is read as raw JSON when it looks like JSON.
 */

import type { Field } from '../collections/model.js'
import { type FieldError, validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required } from './generic-errors.js'
import { byteLength, parseJson } from './cast.js'
import { jsonTextDepth } from '../../tools/json-depth.js'
import { checkInt, collectErrors, numberOption } from './options.js'

/**
 * The deepest nesting a json value may have (arrays and objects: `[[1]]` is 2). SQLite's JSON
 * functions fail past 1000 levels, and a stored value that deep would break every filter and
 * rule on the field; 64 leaves room for any real document.
 */
export const MAX_JSON_DEPTH = 64

/**
 * A submitted JSON text nested deeper than {@link MAX_JSON_DEPTH}: kept unparsed, so no recursive
 * code walks it before validation rejects it. It serialises as `null`.
 */
class TooDeepJson {
  toJSON(): null {
    return null
  }
}

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
  if (!/^[-0-9"[{]/.test(raw)) return raw
  return jsonTextDepth(raw, MAX_JSON_DEPTH) > MAX_JSON_DEPTH
    ? new TooDeepJson()
    : parseJson(raw, raw)
}

/**
 * Checks that `value` is one JSON represents exactly (finite numbers, strings, booleans, null,
 * lists, plain objects) and is nested at most {@link MAX_JSON_DEPTH} deep; walked with an explicit
 * stack, never recursively.
 */
export function inspectJson(value: unknown): 'ok' | 'invalid' | 'too_deep' {
  if (value instanceof TooDeepJson) return 'too_deep'
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    switch (typeof v) {
      case 'string':
      case 'boolean':
        continue
      case 'number':
        if (!Number.isFinite(v)) return 'invalid'
        continue
      case 'object': {
        if (v === null) continue
        if (depth === MAX_JSON_DEPTH) return 'too_deep'
        let children: unknown[]
        if (Array.isArray(v)) children = v
        else {
          const proto: unknown = Object.getPrototypeOf(v)
          if (proto !== Object.prototype && proto !== null) return 'invalid'
          children = Object.values(v)
        }
        for (const child of children) stack.push([child, depth + 1])
        continue
      }
      default:
        return 'invalid'
    }
  }
  return 'ok'
}

function isEmptyJson(value: unknown): boolean {
  if (value === null || value === '') return true
  if (Array.isArray(value)) return value.length === 0
  return typeof value === 'object' && Object.keys(value).length === 0
}

function validateJson(value: unknown, field: Field): FieldError | null {
  const shape = inspectJson(value)
  if (shape === 'too_deep') {
    return validationError('validation_json_too_deep', { maxDepth: MAX_JSON_DEPTH })
  }
  if (shape === 'invalid') return validationError('validation_invalid_json')
  const maxSize = jsonMaxSize(field)
  if (byteLength(JSON.stringify(value)) > maxSize) {
    return validationError('validation_json_size_limit', {
      maxSize,
    })
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
