/**
 * Tolerant casts of submitted values, accepting JSON bodies and multipart-inferred values alike
 * (PocketBase's `cast.To*`). A list where a scalar is expected (repeated multipart keys) yields its
 * last item, as HTML forms expect from a hidden input followed by a checkbox.
 */

/** The last item of a list, or the value itself. */
export function lastScalar(raw: unknown): unknown {
  return Array.isArray(raw) ? raw[raw.length - 1] : raw
}

/**
 * True for a submitted value no scalar cast applies to: an object, an empty list, or a list whose
 * last item is an object or a list. Field types keep such a value as sent, so that validation
 * reports its type instead of reading it as blank.
 */
export function isUncastable(raw: unknown): boolean {
  if (Array.isArray(raw) && raw.length === 0) return true
  const v = lastScalar(raw)
  return typeof v === 'object' && v !== null && !(v instanceof Date)
}

/** Casts to a string: numbers and booleans print, objects and `null` become `''`. */
export function toText(raw: unknown): string {
  const v = lastScalar(raw)
  switch (typeof v) {
    case 'string':
      return v
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(v)
    default:
      return ''
  }
}

/** `toText`, except that an uncastable value is kept as sent, for validation to report. */
export function castText(raw: unknown): unknown {
  return isUncastable(raw) ? raw : toText(raw)
}

const truthy = new Set(['1', 't', 'true', 'y', 'yes', 'on'])
const falsy = new Set(['', '0', 'f', 'false', 'n', 'no', 'off'])

/**
 * True when a submitted value reads as a boolean: a boolean, a number, `null`, or one of the
 * words `toBool` knows (`"true"`, `"on"`, `"0"`, `"no"`, `""`…), possibly as the last of a list.
 */
export function isBoolLike(raw: unknown): boolean {
  if (isUncastable(raw)) return false
  const v = lastScalar(raw)
  if (typeof v !== 'string') return true
  const s = v.trim().toLowerCase()
  return truthy.has(s) || falsy.has(s)
}

/** Casts to a boolean: `true`, non-zero numbers and `"1"`/`"t"`/`"true"`/`"yes"`/`"on"` are true. */
export function toBool(raw: unknown): boolean {
  const v = lastScalar(raw)
  switch (typeof v) {
    case 'boolean':
      return v
    case 'number':
      return v !== 0 && !Number.isNaN(v)
    case 'bigint':
      return v !== 0n
    case 'string':
      return truthy.has(v.trim().toLowerCase())
    default:
      return false
  }
}

/**
 * Casts to a number: numeric strings parse, booleans are 1/0, anything else is 0. Infinite and NaN
 * results are kept so that validation can report them.
 */
export function toNumber(raw: unknown): number {
  const v = lastScalar(raw)
  switch (typeof v) {
    case 'number':
      return v
    case 'bigint':
      return Number(v)
    case 'boolean':
      return v ? 1 : 0
    case 'string': {
      const s = v.trim()
      if (s === '') return 0
      const n = Number(s)
      return Number.isNaN(n) && !/^[+-]?nan$/i.test(s) ? 0 : n
    }
    default:
      return 0
  }
}

/**
 * True when a submitted value reads as a number: a number, a boolean, `null`, `''`, or numeric
 * text (`" 12.5 "`, `"1e3"`, `"Infinity"`, `"NaN"`), possibly as the last of a list.
 */
export function isNumberLike(raw: unknown): boolean {
  if (isUncastable(raw)) return false
  const v = lastScalar(raw)
  if (typeof v !== 'string') return true
  const s = v.trim()
  return s === '' || !Number.isNaN(Number(s)) || /^[+-]?nan$/i.test(s)
}

/** The length in Unicode code points (Go runes), not UTF-16 units. */
export function runeLength(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

/** The UTF-8 byte length of a string. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8')
}

/** Parses JSON text, returning `fallback` when it is not valid JSON. */
export function parseJson(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return fallback
  }
}
