/**
 * The filter lexer (after ganigeorgiev/fexpr): turns filter text into tokens in one linear
 * pass. Whitespace and `// comments` are dropped.
 */
import { isComparisonOperator } from './ast.js'
import { FilterSyntaxError, quote } from './errors.js'

/** The kinds of tokens the parser sees. */
export type TokenType =
  'identifier' | 'number' | 'text' | 'operator' | 'join' | 'lparen' | 'rparen' | 'comma' | 'eof'

/** One token: `value` is the unescaped text for `text`, else the source text. */
export interface Token {
  readonly type: TokenType
  readonly value: string
  /** 0-based offset of the first character. */
  readonly start: number
  /** Offset just past the last character. */
  readonly end: number
}

/**
 * Identifier characters. NB: ASCII is decided without the `\p{…}` classes: compiling those loads
 * ICU's character property data into the process (~1 MB resident, measured), which a filter
 * written in ASCII (nearly all of them) need not pay.
 */
const asciiStart = /[A-Za-z_@#]/
const asciiPart = /[A-Za-z0-9_@#.:]/
const unicodeStart = /[\p{L}_@#]/u
const unicodePart = /[\p{L}\p{Nd}_@#.:]/u
const isIdentifierStart = (c: string): boolean =>
  c < '\x80' ? asciiStart.test(c) : unicodeStart.test(c)
const isIdentifierPart = (c: string): boolean =>
  c < '\x80' ? asciiPart.test(c) : unicodePart.test(c)
const digit = /[0-9]/
const numberPattern = /^-?[0-9]+(\.[0-9]+)?$/
const operatorChars = '=!<>~?'
const whitespace = ' \t\n\r'

/** True when `text` is a complete identifier (as the lexer would read it). */
export function isIdentifier(text: string): boolean {
  const chars = Array.from(text)
  if (chars.length === 0 || !isIdentifierStart(chars[0]!)) return false
  return chars.every(isIdentifierPart)
}

/** Splits filter text into tokens, ending with one `eof` token. Linear in the text length. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  const push = (type: TokenType, start: number, end: number, value = text.slice(start, end)) => {
    tokens.push({ type, value, start, end })
    i = end
  }
  while (i < text.length) {
    const c = text[i]!
    if (whitespace.includes(c)) {
      i++
    } else if (c === '/' && text[i + 1] === '/') {
      const nl = text.indexOf('\n', i)
      i = nl === -1 ? text.length : nl + 1
    } else if (c === '(') {
      push('lparen', i, i + 1)
    } else if (c === ')') {
      push('rparen', i, i + 1)
    } else if (c === ',') {
      push('comma', i, i + 1)
    } else if (c === "'" || c === '"') {
      const { end, value } = scanText(text, i)
      push('text', i, end, value)
    } else if (digit.test(c) || (c === '-' && digit.test(text[i + 1] ?? ''))) {
      push('number', i, scanNumber(text, i))
    } else if (operatorChars.includes(c)) {
      push('operator', i, scanOperator(text, i))
    } else if (c === '&' || c === '|') {
      let end = i
      while (text[end] === '&' || text[end] === '|') end++
      const op = text.slice(i, end)
      if (op !== '&&' && op !== '||') {
        throw new FilterSyntaxError(
          'invalid_operator',
          `unknown join ${quote(op)} at position ${i}, expected "&&" or "||"`,
          i,
        )
      }
      push('join', i, end)
    } else {
      const cp = String.fromCodePoint(text.codePointAt(i)!)
      if (!isIdentifierStart(cp)) {
        throw new FilterSyntaxError(
          'unexpected_character',
          `unexpected character ${quote(cp)} at position ${i}`,
          i,
        )
      }
      push('identifier', i, scanIdentifier(text, i))
    }
  }
  tokens.push({ type: 'eof', value: '', start: text.length, end: text.length })
  return tokens
}

function scanIdentifier(text: string, start: number): number {
  let i = start
  while (i < text.length) {
    const cp = String.fromCodePoint(text.codePointAt(i)!)
    if (!isIdentifierPart(cp)) break
    i += cp.length
  }
  return i
}

function scanNumber(text: string, start: number): number {
  let end = start + 1
  while (end < text.length && (digit.test(text[end]!) || text[end] === '.')) end++
  // NB: `1abc` is one bad number, not a number followed by an identifier.
  while (end < text.length && isIdentifierPart(text[end]!)) end++
  const raw = text.slice(start, end)
  if (!numberPattern.test(raw)) {
    throw new FilterSyntaxError(
      'invalid_number',
      `invalid number ${quote(raw)} at position ${start}`,
      start,
    )
  }
  return end
}

function scanOperator(text: string, start: number): number {
  let end = start
  while (end < text.length && operatorChars.includes(text[end]!)) end++
  const op = text.slice(start, end)
  if (!isComparisonOperator(op)) {
    throw new FilterSyntaxError(
      'invalid_operator',
      `unknown operator ${quote(op)} at position ${start}`,
      start,
    )
  }
  return end
}

/** What a backslash followed by the key stands for in quoted text; others keep the backslash. */
const escapes: Readonly<Record<string, string>> = {
  '\\': '\\',
  '"': '"',
  "'": "'",
  n: '\n',
  t: '\t',
  r: '\r',
}

/**
 * Reads `'…'` or `"…"`. As PocketBase 0.40 reads them, a backslash escapes a backslash, either
 * quote, `n`, `t` and `r` (`"back\\slash"` is `back\slash`, `"x\\"` ends after `x\`); before
 * any other character it stays as written (`"a\b"` is `a\b`).
 */
function scanText(text: string, start: number): { end: number; value: string } {
  const q = text[start]!
  let i = start + 1
  let value = ''
  while (i < text.length) {
    const c = text[i]!
    if (c === q) return { end: i + 1, value }
    if (c === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!
      value += Object.hasOwn(escapes, next) ? escapes[next] : c + next
      i += 2
      continue
    }
    value += c
    i++
  }
  throw new FilterSyntaxError(
    'unterminated_text',
    `unterminated text starting at position ${start}`,
    start,
  )
}
