/**
 * The `geoPoint` field: `{lon, lat}` in degrees, submitted as an object or its JSON text; the zero
 * point `{lon: 0, lat: 0}` is "empty", so `required` means not both zero. A value that does not
 * decode as a point (`"junk"`, `[1, 2]`, `{"lon": "1"}`) is the zero point, as in PocketBase.
 */

import { type FieldError, validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required, wrongType } from './generic-errors.js'

/** A geographic point. */
export interface GeoPoint {
  lon: number
  lat: number
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** The first JSON object of a text (what Go's JSON decoder reads; text after it is ignored). */
function firstJsonObject(text: string): unknown {
  const start = text.search(/\S/)
  if (start < 0 || text[start] !== '{') return undefined
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{' || c === '[') depth++
    else if ((c === '}' || c === ']') && --depth === 0) {
      try {
        return JSON.parse(text.slice(start, i + 1)) as unknown
      } catch {
        return undefined
      }
    }
  }
  return undefined
}

/** One coordinate of a decoded object: a number, or 0 when absent or null; undefined if invalid. */
function coordinate(v: unknown): number | undefined {
  if (v === undefined || v === null) return 0
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

/**
 * Casts an object or its JSON text to a point as PocketBase decodes it: the keys `lon` and `lat`
 * (exactly so), missing or null ones 0, other keys ignored; anything that does not decode (text
 * that is no JSON object, a list, a coordinate that is no number) is the zero point.
 */
export function toGeoPoint(raw: unknown): GeoPoint {
  const v = typeof raw === 'string' ? firstJsonObject(raw) : raw
  if (!isRecord(v)) return { lon: 0, lat: 0 }
  const lon = coordinate(v.lon)
  const lat = coordinate(v.lat)
  return lon === undefined || lat === undefined ? { lon: 0, lat: 0 } : { lon, lat }
}

function isGeoPoint(v: unknown): v is GeoPoint {
  return isRecord(v) && typeof v.lon === 'number' && typeof v.lat === 'number'
}

function validatePoint(value: unknown, isRequired: boolean): FieldError | null {
  if (!isGeoPoint(value) || !Number.isFinite(value.lon) || !Number.isFinite(value.lat)) {
    return isRecord(value)
      ? validationError('validation_unsupported_value_type:point')
      : wrongType('a point {"lon": number, "lat": number}', value)
  }
  if (value.lon === 0 && value.lat === 0) return isRequired ? required() : null
  if (value.lat < -90 || value.lat > 90) {
    return validationError('validation_invalid_latitude')
  }
  if (value.lon < -180 || value.lon > 180) {
    return validationError('validation_invalid_longitude')
  }
  return null
}

/** The `geoPoint` field type. */
export const geoPointField: FieldType = {
  type: 'geoPoint',
  column: () => 'json',
  defaultOptions: () => ({}),
  validateOptions: () => ({}),
  isMulti: () => false,
  zero: () => ({ lon: 0, lat: 0 }),
  normalize: (raw) => toGeoPoint(raw),
  validate: (value, field) => Promise.resolve(validatePoint(value, field.required)),
  toDb(value) {
    const p = toGeoPoint(value)
    return JSON.stringify({ lon: p.lon, lat: p.lat })
  },
  fromDb: (raw) => toGeoPoint(raw),
}
