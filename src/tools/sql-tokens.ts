/**
 * A small SQL tokenizer for reading what users write (index statements, view queries): words,
 * quoted identifiers, string and number literals, operators and punctuation, with comments and
 * whitespace skipped. It understands SQLite's lexical forms, which PocketBase schemas use.
 */

/** What a token is. */
export type SqlTokenKind = 'word' | 'quoted' | 'string' | 'number' | 'op'

/** One token with its position in the source. */
export interface SqlToken {
  kind: SqlTokenKind
  /** The token as written. */
  text: string
  /** Unquoted content for `quoted` and `string`, the text otherwise. */
  value: string
  /** For `quoted`: the opening quote (`"`, `` ` `` or `[`). */
  quote?: string
  start: number
  end: number
}

/** Raised on input the tokenizer cannot read (an unterminated string, a stray character). */
export class SqlTokenError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message)
    this.name = 'SqlTokenError'
  }
}

const twoCharOps = new Set(['||', '<=', '>=', '<>', '!=', '==', '<<', '>>'])
const oneCharOps = new Set([...'=<>+-*/%&|~,.();'])

function readQuoted(src: string, start: number, close: string): [string, number] {
  let value = ''
  let i = start + 1
  for (;;) {
    const j = src.indexOf(close, i)
    if (j < 0) throw new SqlTokenError(`unterminated ${src[start]} at ${start}`, start)
    value += src.slice(i, j)
    // A doubled closing quote is an escaped one (not for [brackets]).
    if (close !== ']' && src[j + 1] === close) {
      value += close
      i = j + 2
      continue
    }
    return [value, j + 1]
  }
}

/** Splits SQL text into tokens; throws {@link SqlTokenError} on unreadable input. */
export function tokenizeSql(src: string): SqlToken[] {
  const out: SqlToken[] = []
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    if (/\s/.test(c)) {
      i++
      continue
    }
    if (c === '-' && src[i + 1] === '-') {
      const nl = src.indexOf('\n', i)
      i = nl < 0 ? src.length : nl + 1
      continue
    }
    if (c === '/' && src[i + 1] === '*') {
      const endComment = src.indexOf('*/', i + 2)
      if (endComment < 0) throw new SqlTokenError(`unterminated comment at ${i}`, i)
      i = endComment + 2
      continue
    }
    const start = i
    if (c === "'") {
      const [value, end] = readQuoted(src, i, "'")
      out.push({ kind: 'string', text: src.slice(start, end), value, start, end })
      i = end
    } else if (c === '"' || c === '`' || c === '[') {
      const [value, end] = readQuoted(src, i, c === '[' ? ']' : c)
      out.push({ kind: 'quoted', text: src.slice(start, end), value, quote: c, start, end })
      i = end
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:0x[0-9a-f]+|[0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)/i.exec(src.slice(i))!
      i += m[0].length
      out.push({ kind: 'number', text: m[0], value: m[0], start, end: i })
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      const m = /^[A-Za-z_0-9$\u0080-\uffff]+/.exec(src.slice(i))!
      i += m[0].length
      out.push({ kind: 'word', text: m[0], value: m[0], start, end: i })
    } else if (twoCharOps.has(src.slice(i, i + 2))) {
      i += 2
      out.push({ kind: 'op', text: src.slice(start, i), value: src.slice(start, i), start, end: i })
    } else if (oneCharOps.has(c)) {
      i++
      out.push({ kind: 'op', text: c, value: c, start, end: i })
    } else {
      throw new SqlTokenError(`unexpected character ${JSON.stringify(c)} at ${i}`, i)
    }
  }
  return out
}

/** True when `t` is the bare keyword `word` (case-insensitive). */
export function isKeyword(t: SqlToken | undefined, word: string): boolean {
  return t?.kind === 'word' && t.value.toUpperCase() === word
}
