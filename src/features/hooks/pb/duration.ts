/**
 * Go's `time.Duration` as a `*.pb.js` script sees one (PocketBase's `e.idleTimeout`): a number
 * of nanoseconds (`Number(d)`, `d + 1`, JSON), `String(d)` in Go's form (`5m0s`), and Go's
 * methods (`d.seconds()`, `d.minutes()`, …).
 */

/** Go's `Duration.String()` of `ns` nanoseconds. */
export function durationString(ns: number): string {
  if (ns === 0) return '0s'
  const sign = ns < 0 ? '-' : ''
  const a = Math.abs(ns)
  const frac = (n: number, unit: number) => {
    const whole = Math.floor(n / unit)
    const rest = String(n % unit)
      .padStart(String(unit).length - 1, '0')
      .replace(/0+$/, '')
    return rest === '' ? `${whole}` : `${whole}.${rest}`
  }
  if (a < 1e3) return `${sign}${a}ns`
  if (a < 1e6) return `${sign}${frac(a, 1e3)}µs`
  if (a < 1e9) return `${sign}${frac(a, 1e6)}ms`
  const h = Math.floor(a / 3.6e12)
  const m = Math.floor((a % 3.6e12) / 6e10)
  const s = frac(a % 6e10, 1e9)
  if (h > 0) return `${sign}${h}h${m}m${s}s`
  if (m > 0) return `${sign}${m}m${s}s`
  return `${sign}${s}s`
}

/** A duration value for a script. */
export function goDuration(ns: number): object {
  const out = {
    nanoseconds: () => ns,
    microseconds: () => Math.trunc(ns / 1e3),
    milliseconds: () => Math.trunc(ns / 1e6),
    seconds: () => ns / 1e9,
    minutes: () => ns / 6e10,
    hours: () => ns / 3.6e12,
    string: () => durationString(ns),
  }
  for (const [k, value] of Object.entries({
    valueOf: () => ns,
    toString: () => durationString(ns),
    toJSON: () => ns,
  }))
    Object.defineProperty(out, k, { value })
  Object.defineProperty(out, Symbol.toPrimitive, {
    value: (hint: string) => (hint === 'string' ? durationString(ns) : ns),
  })
  return out
}

/** Nanoseconds from a script's value (a number or a duration), or null when it is neither. */
export function nanosOf(v: unknown): number | null {
  const n = typeof v === 'object' && v !== null ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) ? Math.trunc(n) : null
}
