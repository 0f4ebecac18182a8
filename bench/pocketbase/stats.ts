/** The figures of `npm run bench:pocketbase`: per-run summaries and medians over rounds. */

/** The value at percentile `p` (0–100) of ascending `sorted` values (nearest rank); NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!
}

/** The median (mean of the two middle values for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  const v = values.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b)
  if (v.length === 0) return Number.NaN
  const mid = v.length >> 1
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2
}

/** Best, worst, p50 and p95 of one run's request times (ms). */
export interface Spread {
  bestMs: number
  worstMs: number
  p50Ms: number
  p95Ms: number
}

export function spread(times: readonly number[]): Spread {
  const sorted = times.filter((t) => t !== undefined).sort((a, b) => a - b)
  return {
    bestMs: sorted[0] ?? Number.NaN,
    worstMs: sorted[sorted.length - 1] ?? Number.NaN,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
  }
}

/** A ratio rounded to two decimals (NaN when either side is missing or zero). */
export function ratio(a: number, b: number): number {
  if (!(a > 0) || !(b > 0)) return Number.NaN
  return Math.round((a / b) * 100) / 100
}

/** A duration for the tables: `812 µs`, `42.3 ms`, `1.234 s`, `1 m 02.1 s`; empty when NaN. */
export function formatMs(ms: number): string {
  if (Number.isNaN(ms)) return ''
  if (ms < 1) return `${Math.round(ms * 1000)} µs`
  if (ms < 100) return `${ms.toFixed(1)} ms`
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(3)} s`
  const m = Math.floor(ms / 60_000)
  return `${m} m ${((ms - m * 60_000) / 1000).toFixed(1).padStart(4, '0')} s`
}

/** Rounds to 3 decimals for the JSON. */
export const r3 = (x: number) => (Number.isNaN(x) ? null : Math.round(x * 1000) / 1000)
