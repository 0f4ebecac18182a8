/**
 * The cookies of a `$http.send` answer as PocketBase gives them: Go's `http.Cookie` read from
 * each `Set-Cookie` line (`net/http`'s `readSetCookies`), seen by a script through PocketBase's
 * field mapper (`c.name`, `c.value`, `c.maxAge`, `c.httpOnly`, …, `c.string()`, `c.valid()`),
 * and as JSON with Go's field names (`{"Name": …, "Expires": "0001-01-01T00:00:00Z", …}`).
 */

/** A Go `time.Time` as a script sees one: `String(t)` in Go's form, JSON in RFC 3339. */
export function goTime(ms: number | null): object {
  const zero = ms === null
  const d = new Date(zero ? 0 : ms)
  const pad = (n: number, w = 2) => String(n).padStart(w, '0')
  const date = zero
    ? '0001-01-01'
    : `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
  const clock = zero
    ? '00:00:00'
    : `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  const out = {
    isZero: () => zero,
    unix: () => (zero ? -62135596800 : Math.floor(d.getTime() / 1000)),
    string: () => `${date} ${clock} +0000 UTC`,
  }
  Object.defineProperty(out, 'toString', { value: () => out.string() })
  Object.defineProperty(out, 'toJSON', { value: () => `${date}T${clock}Z` })
  return out
}

/** Go's `http.Cookie`, plain. */
export interface GoCookie {
  name: string
  value: string
  quoted: boolean
  path: string
  domain: string
  /** Milliseconds since the epoch, or null (Go's zero time). */
  expires: number | null
  rawExpires: string
  maxAge: number
  secure: boolean
  httpOnly: boolean
  sameSite: number
  partitioned: boolean
  raw: string
  unparsed: string[]
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Go's cookie value rules: no control characters, quotes, comma, semicolon or backslash. */
const validValue = (v: string) => /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e ]*$/.test(v)

/** One `Set-Cookie` line as Go reads it, or null when Go drops it. */
export function parseSetCookie(line: string): GoCookie | null {
  const parts = line.trim().split(';')
  if (parts.length === 1 && parts[0] === '') return null
  const first = (parts[0] ?? '').trim()
  const eq = first.indexOf('=')
  if (eq < 0) return null
  const name = first.slice(0, eq).trim()
  let value = first.slice(eq + 1)
  if (!TOKEN.test(name)) return null
  let quoted = false
  if (value.length > 1 && value.startsWith('"') && value.endsWith('"')) {
    value = value.slice(1, -1)
    quoted = true
  }
  if (!validValue(value)) return null
  const c: GoCookie = {
    name,
    value,
    quoted,
    path: '',
    domain: '',
    expires: null,
    rawExpires: '',
    maxAge: 0,
    secure: false,
    httpOnly: false,
    sameSite: 0,
    partitioned: false,
    raw: line,
    unparsed: [],
  }
  for (const part of parts.slice(1)) {
    const attr = part.trim()
    if (attr === '') continue
    const i = attr.indexOf('=')
    const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase()
    const val = i < 0 ? '' : attr.slice(i + 1).trim()
    switch (key) {
      case 'samesite':
        c.sameSite = { lax: 2, strict: 3, none: 4 }[val.toLowerCase()] ?? 1
        continue
      case 'secure':
        c.secure = true
        continue
      case 'httponly':
        c.httpOnly = true
        continue
      case 'partitioned':
        c.partitioned = true
        continue
      case 'domain':
        c.domain = val
        continue
      case 'path':
        c.path = val
        continue
      case 'max-age': {
        if (!/^-?\d+$/.test(val) || (val.startsWith('0') && val !== '0')) break
        const n = Number(val)
        c.maxAge = n <= 0 ? -1 : n
        continue
      }
      case 'expires': {
        c.rawExpires = val
        const t = Date.parse(val.replace(/(\d)-(\w{3})-(\d)/, '$1 $2 $3'))
        if (!Number.isNaN(t) && /GMT|UTC|[+-]\d{4}$/.test(val)) c.expires = t
        else c.expires = null
        continue
      }
    }
    c.unparsed.push(attr)
  }
  return c
}

/** Go's `Cookie.String()`: the cookie as a `Set-Cookie` value. */
function cookieString(c: GoCookie): string {
  let s = `${c.name}=${c.quoted ? `"${c.value}"` : c.value}`
  if (c.path) s += `; Path=${c.path}`
  if (c.domain) s += `; Domain=${c.domain}`
  if (c.expires !== null) s += `; Expires=${new Date(c.expires).toUTCString()}`
  if (c.maxAge > 0) s += `; Max-Age=${c.maxAge}`
  else if (c.maxAge < 0) s += '; Max-Age=0'
  if (c.httpOnly) s += '; HttpOnly'
  if (c.secure) s += '; Secure'
  const same = { 2: 'Lax', 3: 'Strict', 4: 'None' }[c.sameSite]
  if (same) s += `; SameSite=${same}`
  if (c.partitioned) s += '; Partitioned'
  return s
}

/** A cookie as the script gets it (a fresh object each time). */
export function cookieObject(c: GoCookie): object {
  const out = {
    name: c.name,
    value: c.value,
    quoted: c.quoted,
    path: c.path,
    domain: c.domain,
    expires: goTime(c.expires),
    rawExpires: c.rawExpires,
    maxAge: c.maxAge,
    secure: c.secure,
    httpOnly: c.httpOnly,
    sameSite: c.sameSite,
    partitioned: c.partitioned,
    raw: c.raw,
    unparsed: [...c.unparsed],
    string: () => cookieString(c),
    valid: () => TOKEN.test(c.name) && validValue(c.value),
  }
  Object.defineProperty(out, 'toJSON', {
    value: () => ({
      Name: c.name,
      Value: c.value,
      Quoted: c.quoted,
      Path: c.path,
      Domain: c.domain,
      Expires: (goTime(c.expires) as { toJSON(): string }).toJSON(),
      RawExpires: c.rawExpires,
      MaxAge: c.maxAge,
      Secure: c.secure,
      HttpOnly: c.httpOnly,
      SameSite: c.sameSite,
      Partitioned: c.partitioned,
      Raw: c.raw,
      Unparsed: [...c.unparsed],
    }),
  })
  return out
}

/** A cookie a script made (`new Cookie({...})` or a plain object) as Go's `http.Cookie`. */
export function cookieOf(v: unknown): GoCookie {
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>
  const text = (k: string) => (typeof o[k] === 'string' ? o[k] : '')
  const num = (k: string) => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? o[k] : 0)
  const exp = o.expires as { isZero?: () => boolean; unix?: () => number } | undefined
  const expires =
    exp && typeof exp.unix === 'function' && !exp.isZero?.() ? exp.unix() * 1000 : null
  return {
    name: text('name'),
    value: text('value'),
    quoted: o.quoted === true,
    path: text('path'),
    domain: text('domain'),
    expires,
    rawExpires: '',
    maxAge: Math.trunc(num('maxAge')),
    secure: o.secure === true,
    httpOnly: o.httpOnly === true,
    sameSite: Math.trunc(num('sameSite')),
    partitioned: o.partitioned === true,
    raw: '',
    unparsed: [],
  }
}

/**
 * The `Set-Cookie` line Go's `http.SetCookie` writes for `c`, or null when Go drops it (a name
 * that is not a token): the value's invalid bytes dropped and quoted when it holds a space or a
 * comma, the path's `;` and control bytes dropped.
 */
export function setCookieLine(c: GoCookie): string | null {
  if (!TOKEN.test(c.name)) return null
  const value = [...c.value].filter((ch) => /^[\x20\x21\x23-\x3a\x3c-\x5b\x5d-\x7e]$/.test(ch))
  const v = value.join('')
  const path = [...c.path].filter((ch) => /^[\x20-\x3a\x3c-\x7e]$/.test(ch)).join('')
  const domain = /^\.?[A-Za-z0-9.-]+$/.test(c.domain) ? c.domain.replace(/^\./, '') : ''
  const expires = c.expires !== null && c.expires >= Date.UTC(1601, 0, 1) ? c.expires : null
  const quoted = c.quoted || v.includes(' ') || v.includes(',')
  return cookieString({ ...c, value: v, quoted, path, domain, expires })
}

/** PocketBase's `Cookie` class: `new Cookie({name, value, path, …})`. */
export function cookieClass(): (data?: unknown) => object {
  return function Cookie(data?: unknown): object {
    return cookieObject(cookieOf(data))
  }
}
