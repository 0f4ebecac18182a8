/**
 * html/template's escaping by context for `$template`: the literal text written so far tells
 * where an action's value lands, and the value is escaped for it as Go's html/template does:
 * element text and quoted attribute values (`&<>"'+` as entities), unquoted attribute values
 * (spaces and `=` too), URL attributes (`href`, `src`, …: a scheme other than http, https or
 * mailto becomes `#ZgotmplZ`, the URL normalised; after `?` or `#` the value is query-escaped),
 * `<script>` bodies and `on…` attributes (the value as JSON), `<style>` bodies and `style`
 * attributes (CSS: `template-css.ts`).
 */
import { CssContext, type UrlEscapers } from './template-css.js'

type State =
  'text' | 'tag' | 'attrName' | 'afterName' | 'beforeValue' | 'value' | 'script' | 'style'

const URL_ATTRS = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'cite',
  'poster',
  'background',
  'longdesc',
  'usemap',
  'codebase',
  'data',
  'icon',
  'manifest',
  'profile',
])

/** The value of `raw(…)` (PocketBase's func): written as it is. */
export class SafeHTML {
  constructor(readonly html: string) {}
}

const HTML_TABLE: Record<string, string> = {
  '\0': '\uFFFD',
  '"': '&#34;',
  '&': '&amp;',
  "'": '&#39;',
  '+': '&#43;',
  '<': '&lt;',
  '>': '&gt;',
}
const NOSPACE_TABLE: Record<string, string> = {
  ...HTML_TABLE,
  '\t': '&#9;',
  '\n': '&#10;',
  '\v': '&#11;',
  '\f': '&#12;',
  '\r': '&#13;',
  ' ': '&#32;',
  '=': '&#61;',
  '`': '&#96;',
}

export const htmlEscape = (s: string): string => s.replace(/[\0"&'+<>]/g, (c) => HTML_TABLE[c] ?? c)
const nospaceEscape = (s: string): string =>
  s.replace(/[\0\t\n\v\f\r "&'+<=>`]/g, (c) => NOSPACE_TABLE[c] ?? c)

/** Go's `processURLOnto`: percent-encodes (lower-case hex) what a URL (part) may not hold. */
function urlProcess(s: string, norm: boolean): string {
  let out = ''
  const bytes = Buffer.from(s, 'utf8')
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] as number
    const ch = String.fromCharCode(c)
    if (/[A-Za-z0-9\-._~]/.test(ch)) out += ch
    else if (norm && '!#$&*+,/:;=?@[]'.includes(ch)) out += ch
    else if (
      norm &&
      ch === '%' &&
      i + 2 < bytes.length &&
      /[0-9a-fA-F]{2}/.test(String.fromCharCode(bytes[i + 1] as number, bytes[i + 2] as number))
    )
      out += ch
    else out += `%${c.toString(16).padStart(2, '0')}`
  }
  return out
}

/** Go's `urlFilter`: `#ZgotmplZ` for a scheme other than http, https or mailto. */
function schemeFilter(s: string): string {
  const colon = s.indexOf(':')
  if (colon >= 0 && !s.slice(0, colon).includes('/')) {
    const scheme = s.slice(0, colon).toLowerCase()
    if (!['http', 'https', 'mailto'].includes(scheme)) return '#ZgotmplZ'
  }
  return s
}

/** A URL at the start of a URL attribute: filtered by scheme, then normalised. */
function urlFilter(s: string): string {
  const filtered = schemeFilter(s)
  return filtered === s ? urlProcess(s, true) : filtered
}

const URLS: UrlEscapers = { filter: schemeFilter, process: urlProcess }

/** Go's `jsValEscaper`: the value as JSON, `<>&` escaped, padded where it could run into code. */
function jsValue(v: unknown, text: (v: unknown) => string): string {
  let json: string
  if (v instanceof SafeHTML) json = JSON.stringify(v.html)
  else if (v === undefined) json = 'null'
  else {
    try {
      json = JSON.stringify(v) ?? 'null'
    } catch {
      json = JSON.stringify(text(v))
    }
  }
  json = json
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
  const ident = /[A-Za-z0-9_$]/
  const pad = ident.test(json[0] ?? '') || ident.test(json[json.length - 1] ?? '')
  return pad ? ` ${json} ` : json
}

const JS_STR: Record<string, string> = {
  '\0': '\\u0000',
  '\t': '\\t',
  '\n': '\\n',
  '\v': '\\u000b',
  '\f': '\\f',
  '\r': '\\r',
  '"': '\\u0022',
  '&': '\\u0026',
  "'": '\\u0027',
  '+': '\\u002b',
  '/': '\\/',
  '<': '\\u003c',
  '>': '\\u003e',
  '\\': '\\\\',
  '`': '\\u0060',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
}

/** Go's `jsStrEscaper`: a value inside a JavaScript string literal. */
function jsString(s: string): string {
  let out = ''
  for (const c of s) {
    const code = c.charCodeAt(0)
    out += JS_STR[c] ?? (code < 0x20 ? `\\u${code.toString(16).padStart(4, '0')}` : c)
  }
  return out
}

/** The quote of the JavaScript string literal `code` ends inside, or ''. */
function jsQuoteAt(code: string, from = ''): string {
  let q = from
  for (let i = 0; i < code.length; i++) {
    const c = code[i]
    if (q) {
      if (c === '\\') i++
      else if (c === q) q = ''
    } else if (c === '"' || c === "'" || c === '`') q = c
  }
  return q
}

/** Follows the literal text of a render and escapes each value for where it lands. */
export class HtmlContext {
  private state: State = 'text'
  private tagName = ''
  private attr = ''
  private quote = ''
  /** Text of the current attribute value written so far. */
  private valueSoFar = ''
  private closingTag = false
  /** The quote of the JavaScript string a `<script>` body is in, or ''. */
  private jsQuote = ''
  private jsEscaped = false
  /** The CSS a `<style>` body or a `style` attribute's value is in. */
  private css = new CssContext(URLS)

  /** Feeds literal template text; returns it as written out (a `<style>`'s comments elided). */
  feed(s: string): string {
    let out = ''
    let i = 0
    while (i < s.length) {
      if (this.state === 'style') {
        // the element ends at `</style`, whatever the CSS inside (as an HTML parser reads it)
        const m = /<\/style/i.exec(s.slice(i))
        const end = m ? i + m.index : s.length
        out += this.css.text(s.slice(i, end), true)
        if (!m) return out
        this.state = 'tag'
        this.closingTag = true
        this.tagName = 'style'
        out += s.slice(end, end + 7)
        i = end + 7
        continue
      }
      const c = s[i] as string
      this.step(c)
      out += c
      i++
    }
    return out
  }

  private step(c: string): void {
    switch (this.state) {
      case 'text':
        if (c === '<') {
          this.state = 'tag'
          this.tagName = ''
          this.closingTag = false
        }
        return
      case 'script':
        if (this.jsEscaped) this.jsEscaped = false
        else if (this.jsQuote && c === '\\') this.jsEscaped = true
        else this.jsQuote = jsQuoteAt(c, this.jsQuote)
        this.tagName += c
        if (/<\/script$/i.test(this.tagName)) {
          this.state = 'tag'
          this.closingTag = true
          this.tagName = 'script'
        } else if (this.tagName.length > 16) this.tagName = this.tagName.slice(-8)
        return
      case 'tag':
        if (c === '>') return this.endTag()
        if (c === '/' && this.tagName === '') this.closingTag = true
        else if (/\s/.test(c)) {
          if (this.tagName !== '') this.state = 'afterName'
        } else if (this.tagName === '' || /[A-Za-z0-9-]/.test(c)) this.tagName += c
        return
      case 'attrName':
        if (c === '=') this.state = 'beforeValue'
        else if (c === '>') this.endTag()
        else if (/\s/.test(c)) this.state = 'afterName'
        else this.attr += c.toLowerCase()
        return
      case 'afterName':
        if (c === '=') this.state = 'beforeValue'
        else if (c === '>') this.endTag()
        else if (!/\s/.test(c) && c !== '/') {
          this.state = 'attrName'
          this.attr = c.toLowerCase()
        }
        return
      case 'beforeValue':
        if (/\s/.test(c)) return
        this.state = 'value'
        this.valueSoFar = ''
        this.css = new CssContext(URLS)
        if (c === '"' || c === "'") this.quote = c
        else {
          this.quote = ''
          if (c === '>') return this.endTag()
          this.valueSoFar = c
          if (this.attr === 'style') this.css.text(c, false)
        }
        return
      case 'value':
        if (this.quote ? c === this.quote : /\s/.test(c)) {
          this.state = 'afterName'
          this.attr = ''
        } else if (!this.quote && c === '>') this.endTag()
        else {
          this.valueSoFar += c
          if (this.attr === 'style') this.css.text(c, false)
        }
        return
    }
  }

  private endTag(): void {
    const name = this.tagName.toLowerCase()
    this.state = this.closingTag ? 'text' : name === 'script' ? 'script' : 'text'
    if (name === 'style' && !this.closingTag) {
      this.state = 'style'
      this.css = new CssContext(URLS)
    }
    this.tagName = ''
    this.jsQuote = ''
  }

  /** The escaped text of an action's value. */
  escape(v: unknown, text: (v: unknown) => string): string {
    if (this.state === 'script')
      return this.jsQuote ? jsString(v instanceof SafeHTML ? v.html : text(v)) : jsValue(v, text)
    const raw = v instanceof SafeHTML ? v.html : text(v)
    if (this.state === 'style') return this.css.escape(raw)
    if (this.state === 'text') return v instanceof SafeHTML ? raw : htmlEscape(raw)
    if (this.state === 'beforeValue') {
      // an unquoted value that starts with the action
      this.state = 'value'
      this.quote = ''
      this.valueSoFar = ''
    }
    if (this.state !== 'value') return htmlEscape(raw) // an action in a tag's name or attributes
    let out: string
    if (this.attr.startsWith('on'))
      out = jsQuoteAt(this.valueSoFar) ? jsString(raw) : jsValue(v, text)
    else if (this.attr === 'style') out = this.css.escape(raw)
    else if (URL_ATTRS.has(this.attr)) {
      out = /[?#]/.test(this.valueSoFar)
        ? urlProcess(raw, false)
        : this.valueSoFar === ''
          ? urlFilter(raw)
          : urlProcess(raw, true)
    } else out = raw
    this.valueSoFar += 'x' // a value adds no quote or `?`
    return this.quote ? htmlEscape(out) : nospaceEscape(out)
  }
}
