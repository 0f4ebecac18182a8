/**
 * The typed values `record.getDateTime(field)` and `record.getGeoPoint(field)` give a `*.pb.js`
 * script, as PocketBase's `types.DateTime` and `types.GeoPoint` behave there: a date prints and
 * JSON-encodes as `2024-01-02 03:04:05.678Z` (`""` when zero), a point as `{lon, lat}`.
 */

/** Go's zero `time.Time` in Unix seconds (January 1, year 1, UTC). */
const ZERO_UNIX = -62135596800

/** Milliseconds since the epoch of a stored date text, or null when it is not one. */
function parseDate(v: unknown): number | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.getTime()
  if (typeof v !== 'string' || v.trim() === '') return null
  const t = Date.parse(v.trim().replace(' ', 'T'))
  return Number.isNaN(t) ? null : t
}

/** PocketBase's `types.DateTime` (the part scripts use). */
export class PbDateTime {
  constructor(private readonly ms: number | null) {}

  static of(v: unknown): PbDateTime {
    return new PbDateTime(v instanceof PbDateTime ? v.ms : parseDate(v))
  }

  isZero(): boolean {
    return this.ms === null
  }

  /** `2024-01-02 03:04:05.678Z`, or `""` when zero. */
  string(): string {
    return this.ms === null ? '' : new Date(this.ms).toISOString().replace('T', ' ')
  }

  unix(): number {
    return this.ms === null ? ZERO_UNIX : Math.floor(this.ms / 1000)
  }

  equal(other: unknown): boolean {
    return PbDateTime.of(other).unix() === this.unix() && PbDateTime.of(other).ms === this.ms
  }

  before(other: unknown): boolean {
    return (this.ms ?? -Infinity) < (PbDateTime.of(other).ms ?? -Infinity)
  }

  after(other: unknown): boolean {
    return (this.ms ?? -Infinity) > (PbDateTime.of(other).ms ?? -Infinity)
  }

  toString(): string {
    return this.string()
  }

  toJSON(): string {
    return this.string()
  }
}

/** PocketBase's `types.GeoPoint`: `{lon, lat}`, both 0 for a value that is not a point. */
export function geoPointOf(v: unknown): { lon: number; lat: number } {
  let value = v
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown
    } catch {
      value = null
    }
  }
  const o = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
  const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : Number(x) || 0)
  return { lon: num(o.lon), lat: num(o.lat) }
}
