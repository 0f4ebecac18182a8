/**
 * The `geoPoint` field: `{lon, lat}` in degrees, submitted as an object or its JSON text; the zero
 * point `{lon: 0, lat: 0}` is "empty", so `required` means not both zero.
 */

import { type FieldError, validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required, wrongType } from './generic-errors.js'
import { lastScalar, parseJson, toNumber } from './cast.js'

/** A geographic point. */
export interface GeoPoint {
  lon: number
  lat: number
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const isCoordinate = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  typeof v === 'number' ||
  (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)))

/**
 * Casts an object or JSON text to a point (missing coordinates are 0; `null`/`''` is the zero
 * point). Anything else is returned unchanged, so that validation reports it.
 */
export function toGeoPoint(raw: unknown): unknown {
  let v = lastScalar(raw)
  if (v === null || v === undefined || v === '') return { lon: 0, lat: 0 }
  if (typeof v === 'string') v = parseJson(v, v)
  if (!isRecord(v) || !isCoordinate(v.lon) || !isCoordinate(v.lat)) return raw
  return { lon: toNumber(v.lon), lat: toNumber(v.lat) }
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
    return JSON.stringify(isGeoPoint(p) ? { lon: p.lon, lat: p.lat } : { lon: 0, lat: 0 })
  },
  fromDb(raw) {
    const p = toGeoPoint(raw)
    return isGeoPoint(p) ? p : { lon: 0, lat: 0 }
  },
}
