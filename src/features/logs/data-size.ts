/** Shrinking a log's `data` to `settings.logs.maxDataSize` while keeping it valid JSON. */

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8')

/** Cuts `s` to at most `n` UTF-16 units without splitting a surrogate pair. */
function cut(s: string, n: number): string {
  if (n <= 0) return ''
  const out = s.slice(0, n)
  const last = out.charCodeAt(out.length - 1)
  return last >= 0xd800 && last <= 0xdbff ? out.slice(0, -1) : out
}

/**
 * Serialises log data as JSON of at most `maxBytes` UTF-8 bytes (0 = unlimited). When it is too
 * big, objects and arrays become their JSON text, the longest strings are shortened first and
 * `truncated: true` is added; numbers and booleans stay. NB: the result can never be smaller than
 * `{"truncated":true}` plus the scalar keys, so a tiny limit may still be exceeded.
 */
export function serializeLogData(data: Record<string, unknown>, maxBytes: number): string {
  const full = JSON.stringify(data)
  if (maxBytes <= 0 || Buffer.byteLength(full, 'utf8') <= maxBytes) return full
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(data)) {
    out[k] = v !== null && typeof v === 'object' ? JSON.stringify(v) : v
  }
  out.truncated = true
  let size = bytes(out)
  while (size > maxBytes) {
    let longest: string | null = null
    for (const [k, v] of Object.entries(out)) {
      if (
        typeof v === 'string' &&
        v !== '' &&
        (longest === null || v.length > String(out[longest]).length)
      )
        longest = k
    }
    if (longest === null) break
    const s = out[longest] as string
    // Every UTF-16 unit cut frees at least one byte, so cutting the excess always progresses.
    out[longest] = cut(s, s.length - (size - maxBytes))
    size = bytes(out)
  }
  return JSON.stringify(out)
}
