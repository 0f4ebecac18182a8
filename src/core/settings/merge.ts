/** Merging settings: a patch onto the current values, stored values onto the defaults. */

import { isObject, type Obj } from './reader.js'

/** Deep-merges `patch` onto `base`: objects merge key by key, anything else (arrays too) replaces. */
export function deepMerge<T extends Record<string, unknown>>(
  base: T,
  patch: Record<string, unknown>,
): T {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(patch)) {
    const mine = Object.hasOwn(out, k) ? out[k] : undefined
    const value = isObject(v) && isObject(mine) ? deepMerge(mine, v) : v
    // NB: defineProperty, so that a `__proto__` key stays data and never becomes a prototype.
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true })
  }
  return out as T
}

const kind = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v)

/**
 * Lays stored values over the defaults, keeping only the keys the defaults have and values of
 * the defaults' JSON kind, so that a row written by another version cannot break the readers.
 */
export function overlayStored(defaults: Obj, stored: Obj): Obj {
  const out: Obj = { ...defaults }
  for (const [k, d] of Object.entries(defaults)) {
    if (!Object.hasOwn(stored, k)) continue
    const v = stored[k]
    if (isObject(d) && isObject(v)) out[k] = overlayStored(d, v)
    else if (kind(v) === kind(d)) out[k] = v
  }
  return out
}
