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

/** A submitted JSON text naming a member twice (`{"a":1,"a":2}`), which PocketBase refuses. */
class DuplicateNameJson {
  toJSON(): null {
    return null
  }
}

/**
 * True when an object of a valid JSON text names a member twice (Go's JSON decoder refuses it);
 * one pass over the text, never recursive.
 */
function hasDuplicateNames(text: string): boolean {
  if (!text.includes('{')) return false
  const stack: Array<Set<string> | null> = []
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '{') stack.push(new Set())
    else if (c === '[') stack.push(null)
    else if (c === '}' || c === ']') stack.pop()
    else if (c === '"') {
      let j = i + 1
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      const names = stack[stack.length - 1]
      let k = j + 1
      while (text[k] === ' ' || text[k] === '\t' || text[k] === '\n' || text[k] === '\r') k++
      if (names && text[k] === ':') {
        const name = JSON.parse(text.slice(i, j + 1)) as string
        if (names.has(name)) return true
        names.add(name)
      }
      i = j
    }
  }
  return false
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
  if (jsonTextDepth(raw, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return new TooDeepJson()
  const parsed = parseJson(raw, raw)
  return parsed !== raw && hasDuplicateNames(raw) ? new DuplicateNameJson() : parsed
}

/**
 * Checks that `value` is one JSON represents exactly (finite numbers, strings, booleans, null,
 * lists, plain objects) and is nested at most {@link MAX_JSON_DEPTH} deep; walked with an explicit
 * stack, never recursively.
 */
export function inspectJson(value: unknown): 'ok' | 'invalid' | 'too_deep' {
  if (value instanceof TooDeepJson) return 'too_deep'
  if (value instanceof DuplicateNameJson) return 'invalid'
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
          // A plain object of any realm (a script's `{…}` made in its own `node:vm` context has
          // that context's Object.prototype), not an instance of a class.
          const proto = Object.getPrototypeOf(v) as object | null
          if (proto !== Object.prototype && proto !== null) {
            if (Object.getPrototypeOf(proto) !== null) return 'invalid'
            if (Object.prototype.toString.call(v) !== '[object Object]') return 'invalid'
          }
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
