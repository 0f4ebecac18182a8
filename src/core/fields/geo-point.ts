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

const skipWs = (text: string, i: number): number => {
  while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i++
  return i
}

// eslint-disable-next-line no-control-regex
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y
const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y

/** The end of the JSON value starting at `i`, or -1 when there is none. */
function valueEnd(text: string, i: number): number {
  const c = text[i]
  if (c !== '{' && c !== '[') {
    const re = c === '"' ? STRING : SCALAR
    re.lastIndex = i
    const m = re.exec(text)
    return m ? i + m[0].length : -1
  }
  let depth = 0
  for (let j = i; j < text.length; j++) {
    const d = text[j]
    if (d === '"') {
      STRING.lastIndex = j
      const m = STRING.exec(text)
      if (!m) return -1
      j += m[0].length - 1
    } else if (d === '{' || d === '[') depth++
    else if ((d === '}' || d === ']') && --depth === 0) {
      try {
        JSON.parse(text.slice(i, j + 1))
        return j + 1
      } catch {
        return -1
      }
    }
  }
  return -1
}

/**
 * The members of the JSON object a text starts with, in order, as Go's streaming decoder reads
 * them: it stops at the first error (a syntax error, a repeated name, the end of the text), and
 * what was read before stays; text after the object is ignored.
 */
function* jsonMembers(text: string): Generator<[string, unknown]> {
  let i = skipWs(text, 0)
  if (text[i] !== '{') return
  i = skipWs(text, i + 1)
  const seen = new Set<string>()
  while (text[i] === '"') {
    STRING.lastIndex = i
    const m = STRING.exec(text)
    if (!m) return
    const key = JSON.parse(m[0]) as string
    if (seen.has(key)) return
    seen.add(key)
    i = skipWs(text, i + m[0].length)
    if (text[i] !== ':') return
    i = skipWs(text, i + 1)
    const end = valueEnd(text, i)
    if (end < 0) return
    yield [key, JSON.parse(text.slice(i, end)) as unknown]
    i = skipWs(text, end)
    if (text[i] !== ',') return
    i = skipWs(text, i + 1)
  }
}

/**
 * Casts an object or its JSON text to a point as PocketBase decodes it: member by member, the
 * keys `lon` and `lat` (exactly so) set from numbers, null ones skipped, other keys ignored; the
 * first error (a coordinate that is no number, a repeated name, broken JSON) ends the decoding
 * and what was set before stays. Anything else (a list, other text) is the zero point.
 */
export function toGeoPoint(raw: unknown): GeoPoint {
  const point: GeoPoint = { lon: 0, lat: 0 }
  const members =
    typeof raw === 'string' ? jsonMembers(raw) : isRecord(raw) ? Object.entries(raw) : []
  for (const [key, v] of members) {
    if ((key !== 'lon' && key !== 'lat') || v === null) continue
    // NB: a number out of range (`1e400`) is infinite, as Go reads it: the range check reports it.
    if (typeof v !== 'number' || Number.isNaN(v)) break
    point[key] = v
  }
  return point
}

function isGeoPoint(v: unknown): v is GeoPoint {
  return isRecord(v) && typeof v.lon === 'number' && typeof v.lat === 'number'
}

function validatePoint(value: unknown, isRequired: boolean): FieldError | null {
  if (!isGeoPoint(value) || Number.isNaN(value.lon) || Number.isNaN(value.lat)) {
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
