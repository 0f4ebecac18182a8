/**
 * The query string parser of every route, reading a query string as Go's `url.ParseQuery` does
 * (PocketBase reads queries so): pairs split on `&`, `+` is a space, and a pair that does not
 * decode (`filter=%ZZ`, a `;` in it) is left out rather than kept as written. A repeated key
 * gives an array of its values, in order (routes take the first, as Go's `Values.Get`).
 */

/** Decodes one key or value (`+` a space, `%XX` a byte); null when an escape is malformed. */
function unescape(text: string): string | null {
  if (!text.includes('%')) return text.includes('+') ? text.replaceAll('+', ' ') : text
  const bytes: number[] = []
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '%') {
      const hex = text.slice(i + 1, i + 3)
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return null
      bytes.push(parseInt(hex, 16))
      i += 2
    } else if (c === '+') {
      bytes.push(0x20)
    } else {
      for (const b of Buffer.from(c, 'utf8')) bytes.push(b)
    }
  }
  return Buffer.from(bytes).toString('utf8')
}

/** Parses a query string (without its `?`) into a null-prototype object. */
export function parseQueryString(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null) as Record<
    string,
    string | string[]
  >
  for (const pair of query.split('&')) {
    if (pair === '' || pair.includes(';')) continue
    const eq = pair.indexOf('=')
    const key = unescape(eq === -1 ? pair : pair.slice(0, eq))
    const value = unescape(eq === -1 ? '' : pair.slice(eq + 1))
    if (key === null || value === null) continue
    const known = out[key]
    if (known === undefined) out[key] = value
    else if (Array.isArray(known)) known.push(value)
    else out[key] = [known, value]
  }
  return out
}
