/**
 * html/template's CSS contexts for `$template` (a `<style>` element's body and a `style`
 * attribute's value), as Go's escaper follows them: plain CSS, `"…"`/`'…'` strings, `url(…)`
 * (unquoted or quoted), and `/* … *\/` and `//` comments. A value lands escaped for where it is:
 * in plain CSS it passes Go's `cssValueFilter` (decoded, and `ZgotmplZ` when it holds a quote,
 * paren, `;`, `{`, `\`, … or spells `expression`/`mozbinding`); in a string it is CSS-escaped
 * (`\22 `, `\3c `, …) after the URL scheme check (Go treats every CSS string as a possible URL);
 * in `url(…)` it is filtered by scheme and percent-encoded; in a comment it is dropped. In a
 * `<style>` element a comment is elided from the output as Go elides it (one space for each
 * piece of text it spans).
 */

type CssState = 'css' | 'dq' | 'sq' | 'url' | 'dqUrl' | 'sqUrl' | 'block' | 'line'
type UrlPart = 'none' | 'pre' | 'query'

const FAILSAFE = 'ZgotmplZ'

/** Go's `decodeCSS`: CSS escapes (`\41 `, `\"`) decoded. */
function decodeCss(s: string): string {
  return s.replace(/\\([0-9a-fA-F]{1,6})[ \t\n\f]?|\\(.)/gs, (_m, hex: string, ch: string) =>
    hex ? String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff) || 0xfffd) : ch,
  )
}

/** Go's `cssValueFilter`: a value safe as a CSS value token, or `ZgotmplZ`. */
function cssValueFilter(s: string): string {
  const b = decodeCss(s)
  let id = ''
  for (let i = 0; i < b.length; i++) {
    const c = b[i] as string
    if ('\0"\'()/;@[\\]`{}<>'.includes(c)) return FAILSAFE
    if (c === '-' && i !== 0 && b[i - 1] === '-') return FAILSAFE
    if (/[-\w]/.test(c)) id += c
  }
  id = id.toLowerCase()
  if (id.includes('expression') || id.includes('mozbinding')) return FAILSAFE
  return b
}

const CSS_TABLE: Record<string, string> = {
  '\0': '\\0',
  '\t': '\\9',
  '\n': '\\a',
  '\f': '\\c',
  '\r': '\\d',
  '"': '\\22',
  '&': '\\26',
  "'": '\\27',
  '(': '\\28',
  ')': '\\29',
  '+': '\\2b',
  '/': '\\2f',
  ':': '\\3a',
  ';': '\\3b',
  '<': '\\3c',
  '>': '\\3e',
  '\\': '\\\\',
  '{': '\\7b',
  '}': '\\7d',
}

/** Go's `cssEscaper`: a value inside a CSS string (a space after a hex escape where needed). */
function cssEscape(s: string): string {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string
    const repl = CSS_TABLE[c]
    if (repl === undefined) {
      out += c
      continue
    }
    out += repl
    const next = s[i + 1]
    if (repl !== '\\\\' && (next === undefined || /[0-9a-fA-F \t\n\f\r]/.test(next))) out += ' '
  }
  return out
}

/** The URL helpers of the HTML context (shared, so both contexts encode alike). */
export interface UrlEscapers {
  /** Go's `urlFilter`: `#ZgotmplZ` for a scheme other than http, https or mailto. */
  filter(s: string): string
  /** Go's `processURLOnto`: percent-encoding, keeping URL delimiters when `norm`. */
  process(s: string, norm: boolean): string
}

/** Follows CSS text and escapes each value for where it lands (see the file's header). */
export class CssContext {
  private state: CssState = 'css'
  private urlPart: UrlPart = 'none'
  /** The CSS text since the last `(`-free stretch began, for `url(` (bounded). */
  private tail = ''
  private escaped = false

  constructor(private readonly url: UrlEscapers) {}

  /** True inside a comment (an action there writes nothing). */
  get inComment(): boolean {
    return this.state === 'block' || this.state === 'line'
  }

  /**
   * Feeds literal CSS text; returns it as it is written out: with `elide` (a `<style>`
   * element), a comment is left out as Go leaves it out (its opener dropped, one space for each
   * piece of text a block comment spans, a line comment's text dropped, its newline kept).
   */
  text(s: string, elide: boolean): string {
    let out = ''
    let spaced = false // this piece of a block comment has written its space
    for (let i = 0; i < s.length; i++) {
      const c = s[i] as string
      if (this.state === 'css' && c === '/' && (s[i + 1] === '*' || s[i + 1] === '/')) {
        this.state = s[i + 1] === '*' ? 'block' : 'line'
        this.tail = ''
        if (!elide) out += s.slice(i, i + 2)
        i++
        continue
      }
      if (this.state === 'block') {
        if (!elide) out += c
        else if (!spaced) out += ' '
        spaced = true
        if (c === '/' && this.tail === '*') {
          this.state = 'css'
          spaced = false
        }
        this.tail = c
        continue
      }
      if (this.state === 'line') {
        if (c !== '\n' && c !== '\r' && c !== '\f') {
          if (!elide) out += c
          continue
        }
        this.state = 'css'
      }
      this.step(c)
      out += c
    }
    return out
  }

  private step(c: string): void {
    switch (this.state) {
      case 'css':
        if (c === '"' || c === "'") this.enter(c === '"' ? 'dq' : 'sq')
        else if (c === '(' && /(^|[^-\w])url\s*$/i.test(this.tail)) this.enter('url')
        else this.tail = (this.tail + c).slice(-16)
        return
      case 'url':
        // spaces after `url(` are skipped; the first other character may open a quoted url
        if (this.urlPart === 'none' && this.tail === '' && /\s/.test(c)) return
        if (this.urlPart === 'none' && (c === '"' || c === "'") && this.tail === '')
          return this.enter(c === '"' ? 'dqUrl' : 'sqUrl')
        if (this.endsString(c, '\\\t\n\f\r )')) return
        this.tail += /\s/.test(c) ? '' : c
        return this.urlText(c)
      case 'dq':
      case 'dqUrl':
        if (this.endsString(c, '\\"')) return
        return this.urlText(c)
      case 'sq':
      case 'sqUrl':
        if (this.endsString(c, "\\'")) return
        return this.urlText(c)
      default:
        return
    }
  }

  private enter(state: CssState): void {
    this.state = state
    this.urlPart = 'none'
    this.tail = ''
    this.escaped = false
  }

  /** True when `c` was an escape or ended the string (back to plain CSS). */
  private endsString(c: string, endAndEsc: string): boolean {
    if (this.escaped) {
      this.escaped = false
      return false
    }
    if (!endAndEsc.includes(c)) return false
    if (c === '\\') {
      this.escaped = true
      return true
    }
    this.state = 'css'
    this.tail = ''
    return true
  }

  /** Go's `tURL`: `?` or `#` starts the query part; other text the part before it. */
  private urlText(c: string): void {
    if (c === '?' || c === '#') this.urlPart = 'query'
    else if (!/\s/.test(c) && this.urlPart === 'none') this.urlPart = 'pre'
  }

  /** The escaped text of a value landing here. */
  escape(raw: string): string {
    switch (this.state) {
      case 'css':
        return cssValueFilter(raw)
      case 'block':
      case 'line':
        return ''
      default: {
        const part = this.urlPart
        if (part === 'none') this.urlPart = 'pre'
        if (part === 'query') return this.url.process(raw, false)
        const string = this.state === 'dq' || this.state === 'sq'
        if (part === 'none') {
          const filtered = this.url.filter(raw)
          if (filtered === '#ZgotmplZ') return string ? cssEscape(filtered) : filtered
          return string ? cssEscape(raw) : this.url.process(raw, true)
        }
        return string ? cssEscape(raw) : this.url.process(raw, true)
      }
    }
  }
}
