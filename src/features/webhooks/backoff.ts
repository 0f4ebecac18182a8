/** The retry schedule of the outbox: exponential backoff with jitter, and `Retry-After`. */

/** The default first retry delay: 42 s × (2^11 − 1) ≈ 24 h over 12 attempts. */
export const BACKOFF_BASE_MS = 42_000
const MAX_DELAY_MS = 24 * 60 * 60 * 1000

/** The delay before attempt `attempt + 1`: base × 2^(attempt−1), ±20 % jitter, at most 24 h. */
export function backoffDelay(base: number, attempt: number, random = Math.random()): number {
  const plain = base * 2 ** Math.max(0, attempt - 1)
  return Math.min(MAX_DELAY_MS, Math.round(plain * (0.8 + 0.4 * random)))
}

/** Seconds of a `Retry-After` header given as seconds, or 0. */
export function retryAfterMs(value: string | string[] | undefined): number {
  const s = Array.isArray(value) ? value[0] : value
  return s && /^\d+$/.test(s) ? Math.min(MAX_DELAY_MS, Number(s) * 1000) : 0
}
