/**
 * The `vector` field (ours, not PocketBase's): an embedding of exactly `dimensions` finite
 * numbers, stored as JSON text; `null` when unset. With `sourceField` set (and an LLM provider
 * configured) the vectors feature fills it from that field.
 */

import type { Field } from '../collections/model.js'
import { type FieldError, validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required } from './generic-errors.js'
import { parseJson } from './cast.js'
import { checkInt, checkString, collectErrors, numberOption, stringOption } from './options.js'

/** The largest accepted `dimensions`. */
export const MAX_VECTOR_DIMENSIONS = 4096

/** The `dimensions` option of a vector field (0 when unset). */
export function vectorDimensions(field: Field): number {
  return numberOption(field, 'dimensions', 0)
}

/** The `sourceField` option of a vector field, `''` when unset. */
export function vectorSourceField(field: Field): string {
  return stringOption(field, 'sourceField')
}

const numeric = (s: string): boolean => s.trim() !== '' && Number.isFinite(Number(s))

/**
 * Casts a list of numbers (or its JSON text) to `number[]`; numeric strings become numbers,
 * `null`/`''`/`[]` become `null`. Anything else is returned unchanged, so that validation reports
 * it.
 */
export function toVector(raw: unknown): unknown {
  const v = typeof raw === 'string' ? (raw.trim() === '' ? null : parseJson(raw, raw)) : raw
  if (v === null || v === undefined) return null
  if (!Array.isArray(v)) return raw
  if (v.length === 0) return null
  if (!v.every((n) => typeof n === 'number' || (typeof n === 'string' && numeric(n)))) return raw
  return v.map(Number)
}

function checkSourceField(field: Field): FieldError | null {
  const err = checkString(field, 'sourceField')
  if (err) return err
  const name = vectorSourceField(field)
  return name === '' || /^\w+$/.test(name) ? null : validationError('validation_invalid_field_name')
}

function validateVector(value: unknown, field: Field): FieldError | null {
  if (value === null) return field.required ? required() : null
  if (!Array.isArray(value) || !value.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    return validationError('validation_vector_invalid')
  }
  const dimensions = vectorDimensions(field)
  return value.length === dimensions
    ? null
    : validationError('validation_vector_dimensions', {
        dimensions,
      })
}

/** The `vector` field type. */
export const vectorField: FieldType = {
  type: 'vector',
  column: () => 'json',
  defaultOptions: () => ({ dimensions: 0, sourceField: '' }),
  validateOptions: (field) =>
    collectErrors({
      dimensions: checkInt(field, 'dimensions', {
        min: 1,
        max: MAX_VECTOR_DIMENSIONS,
        required: true,
      }),
      sourceField: checkSourceField(field),
    }),
  isMulti: () => false,
  zero: () => null,
  normalize: (raw) => toVector(raw),
  validate: (value, field) => Promise.resolve(validateVector(value, field)),
  toDb(value) {
    const v = toVector(value)
    return Array.isArray(v) ? JSON.stringify(v) : null
  },
  fromDb: (raw) => {
    const v = toVector(raw)
    return Array.isArray(v) ? v : null
  },
}
