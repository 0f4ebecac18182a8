/**
 * Dates as svcbase stores and serialises them: UTC, `YYYY-MM-DD HH:MM:SS.sssZ`; the zero date is
 * the empty string (reference §0.7).
 */

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/** Formats a Date in the canonical layout. */
export function formatDate(d: Date): string {
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.` +
    `${pad(d.getUTCMilliseconds(), 3)}Z`
  )
}

/** The current time in the canonical layout. */
export function nowDate(): string {
  return formatDate(new Date())
}

const canonical =
  /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/
const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/

/**
 * Parses a submitted date: the canonical layout, RFC 3339, `YYYY-MM-DD`, or a unix timestamp in
 * seconds. Returns `null` when the value is not a date (the empty string included).
 */
export function parseDate(value: unknown): Date | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null
    return new Date(value * 1000)
  }
  if (typeof value !== 'string') return null
  const s = value.trim()
  if (s === '') return null
  if (/^-?\d+$/.test(s)) return new Date(Number(s) * 1000)
  let m = dateOnly.exec(s)
  if (m) return validDate(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!), m)
  m = canonical.exec(s)
  if (!m) return null
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0
  let t = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, m[6] ? +m[6] : 0, ms)
  const zone = m[8]
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    t -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000
  }
  const d = validDate(t, m)
  return d
}

function validDate(t: number, m: RegExpExecArray): Date | null {
  const d = new Date(t)
  if (Number.isNaN(t)) return null
  // NB: Date.UTC silently rolls 2024-02-31 over to March; reject such input.
  if (m[4] === undefined || !m[8] || m[8] === 'Z') {
    if (d.getUTCMonth() + 1 !== +m[2]! || d.getUTCDate() !== +m[3]!) return null
  }
  return d
}

/** Normalises any accepted date input to the canonical string, or `''` when it is not a date. */
export function normalizeDate(value: unknown): string {
  const d = parseDate(value)
  return d ? formatDate(d) : ''
}
