/**
 * Nesting depth of JSON text, measured in one pass without recursion, so that data from clients
 * is checked before any recursive code (`JSON.stringify`, validators, SQLite's JSON functions)
 * sees it. Depth counts nested arrays and objects: a scalar is 0, `[]` and `{}` are 1,
 * `{"a":[1]}` is 2.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/**
 * The nesting depth of JSON `text`, or `limit + 1` as soon as it is deeper than `limit`. Brackets
 * inside strings do not count; malformed text is left for the parser to report.
 */
export function jsonTextDepth(text: string, limit: number): number {
  let depth = 0
  let max = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      // Skip to the closing quote: one not preceded by an odd number of backslashes.
      let end = text.indexOf('"', i + 1)
      while (end > 0) {
        let slashes = 0
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++
        if (slashes % 2 === 0) break
        end = text.indexOf('"', end + 1)
      }
      if (end < 0) return max
      i = end
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      depth++
      if (depth > max) {
        max = depth
        if (max > limit) return limit + 1
      }
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--
    }
  }
  return max
}
