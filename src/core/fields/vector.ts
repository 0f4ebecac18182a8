/**
 * The `vector` field (ours, not PocketBase's): an embedding of exactly `dimensions` finite
 * numbers, stored as a BLOB of little-endian float32 values (4 bytes a dimension), so values come
 * back rounded to float32; `null` when unset. Rows written before as JSON text still read back.
 * With `sourceField` set the vectors feature fills it from that field.
 */

import type { Field } from '../collections/model.js'
import { type FieldError, validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required } from './generic-errors.js'
import { parseJson } from './cast.js'
import { checkInt, checkString, collectErrors, numberOption, stringOption } from './options.js'

/** The largest finite float32: a larger magnitude cannot be stored. */
export const FLOAT32_MAX = 3.4028234663852886e38

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
  if (
    !Array.isArray(value) ||
    !value.every((n) => typeof n === 'number' && Number.isFinite(n) && Math.abs(n) <= FLOAT32_MAX)
  ) {
    return validationError('validation_vector_invalid')
  }
  const dimensions = vectorDimensions(field)
  return value.length === dimensions
    ? null
    : validationError('validation_vector_dimensions', {
        dimensions,
      })
}

/** A vector as its stored bytes: little-endian float32 values. */
export function vectorToBlob(v: readonly number[]): Buffer {
  const buf = Buffer.allocUnsafe(v.length * 4)
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i]!, i * 4)
  return buf
}

/** The numbers of a stored vector: a float32 BLOB, or the JSON text of older rows. */
export function vectorFromDb(raw: unknown): number[] | null {
  if (raw instanceof Uint8Array) {
    if (raw.length === 0 || raw.length % 4 !== 0) return null
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength)
    const out = new Array<number>(raw.length / 4)
    for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true)
    return out
  }
  const v = toVector(raw)
  return Array.isArray(v) ? (v as number[]) : null
}

/** The `vector` field type. */
export const vectorField: FieldType = {
  type: 'vector',
  column: () => 'blob',
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
  // Rounded to float32 at once, so a written record reads back exactly as it is stored.
  normalize: (raw) => {
    const v = toVector(raw)
    return Array.isArray(v) && v.every((n) => typeof n === 'number') ? v.map(Math.fround) : v
  },
  validate: (value, field) => Promise.resolve(validateVector(value, field)),
  toDb(value) {
    if (value instanceof Uint8Array) return value
    const v = toVector(value)
    return Array.isArray(v) && v.every((n) => typeof n === 'number') ? vectorToBlob(v) : null
  },
  fromDb: (raw) => vectorFromDb(raw),
}
