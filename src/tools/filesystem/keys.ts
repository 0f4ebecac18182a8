import { InvalidKeyError } from './types.js'

/** The longest object key, in UTF-8 bytes (S3's own limit). */
export const MAX_KEY_BYTES = 1024

/** The prefix of a local driver's temporary files; keys may not use it for a segment. */
export const TEMP_PREFIX = '.svcbase-tmp-'

/** A local driver's temporary file name: `.svcbase-tmp-<pid>-<16 hex>`, owned by process `pid`. */
const TEMP_NAME = /^\.svcbase-tmp-(?:(\d{1,10})-)?[0-9a-f]{16}$/

/**
 * The process that made a local driver's temporary file `name`: its id, `'legacy'` for the
 * ownerless `.svcbase-tmp-<16 hex>` of older versions, or null when svcbase did not make the name.
 */
export function tempFileOwner(name: string): number | 'legacy' | null {
  const m = TEMP_NAME.exec(name)
  if (!m) return null
  return m[1] === undefined ? 'legacy' : Number(m[1])
}

/**
 * Why a key is malformed, or null when it is fine. A key is a non-empty string of at most 1024
 * bytes, not absolute, without backslashes, NUL, empty segments (`a//b`), `.` or `..`
 * segments, and does not end in `/` (so the local and the S3 driver accept the same keys).
 */
export function keyProblem(key: string): string | null {
  if (typeof key !== 'string' || key === '') return 'empty'
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return 'too long'
  if (key.includes('\\') || key.includes('\0')) return 'backslash or NUL'
  if (key.startsWith('/')) return 'absolute'
  if (key.endsWith('/')) return 'ends in /'
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return 'bad segment'
    if (segment.startsWith(TEMP_PREFIX)) return 'reserved name'
  }
  return null
}

/** Throws InvalidKeyError unless `key` is a valid object key. */
export function assertKey(key: string): void {
  if (keyProblem(key) !== null) throw new InvalidKeyError(key)
}

/**
 * Throws InvalidKeyError unless `prefix` is a valid listing prefix: empty, or a valid key
 * followed by an optional `/` (so `a/`, `a/b` and `a/b/` are fine).
 */
export function assertPrefix(prefix: string, allowEmpty = true): void {
  if (typeof prefix !== 'string') throw new InvalidKeyError(String(prefix))
  if (prefix === '') {
    if (allowEmpty) return
    throw new InvalidKeyError(prefix)
  }
  const body = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
  if (keyProblem(body) !== null) throw new InvalidKeyError(prefix)
}

/** Compares two strings by UTF-8 bytes, the order S3 lists keys in. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}

/** Checks a byte range against an object size and clamps its end; throws RangeError if unsatisfiable. */
export function clampRange(
  range: { start: number; end: number },
  size: number,
): { start: number; end: number } {
  const { start, end } = range
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start)
    throw new RangeError(`invalid byte range ${start}-${end}`)
  if (start >= size)
    throw new RangeError(`byte range ${start}-${end} not satisfiable (size ${size})`)
  return { start, end: Math.min(end, size - 1) }
}
