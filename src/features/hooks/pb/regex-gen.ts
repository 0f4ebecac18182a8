/**
 * `$security.randomStringByRegex(pattern)`: a random string the RE2 pattern matches, as
 * PocketBase's generator makes one. The pattern is checked by RE2 (`re2js`) first, so what RE2
 * refuses is refused with its message; then a small parser walks the syntax: literals and
 * escapes, classes (ranges, negation, `\d\w\s`, `[:alpha:]`), `.`, groups, alternation and the
 * quantifiers (an open repeat stops at its minimum plus 6). Anchors and word boundaries are
 * refused as PocketBase refuses them (`unsupported pattern operator 9` for `^`, Go's op numbers).
 * Where PocketBase picks any Unicode character (`.`, a negated class) this picks printable
 * ASCII: the string still matches. Bounded: at most 64 KiB of output.
 */
import { RE2JS } from 're2js'

const OPEN_REPEAT = 6
const MAX_OUTPUT = 64 * 1024
const PRINTABLE: Range[] = [[0x20, 0x7e]]

type Range = [number, number]
type Node =
  | { t: 'lit'; ch: string }
  | { t: 'set'; ranges: Range[] }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; options: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number }
  | { t: 'empty' }

const DIGIT: Range[] = [[0x30, 0x39]]
const WORD: Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]
const SPACE: Range[] = [
  [0x09, 0x0a],
  [0x0c, 0x0d],
  [0x20, 0x20],
]
const POSIX: Record<string, Range[]> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  digit: DIGIT,
  lower: [[0x61, 0x7a]],
  upper: [[0x41, 0x5a]],
  space: SPACE,
  word: WORD,
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
}

/** The printable ASCII characters outside `ranges` (a negated class). */
function negate(ranges: Range[]): Range[] {
  const out: Range[] = []
  for (let c = 0x20; c <= 0x7e; c++)
    if (!ranges.some(([a, b]) => c >= a && c <= b)) out.push([c, c])
  return out
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', a: '\x07' }

/** PocketBase's error for an anchor or boundary (Go's `syntax.Op` number). */
const unsupportedOp = (op: number): Error => new Error(`unsupported pattern operator ${op}`)

class Parser {
  i = 0
  constructor(readonly s: string) {}

  parse(): Node {
    const n = this.alt()
    if (this.i < this.s.length) throw new Error(`unexpected ")" at ${this.i}`)
    return n
  }

  alt(): Node {
    const options = [this.seq()]
    while (this.s[this.i] === '|') {
      this.i++
      options.push(this.seq())
    }
    return options.length === 1 ? (options[0] as Node) : { t: 'alt', options }
  }

  seq(): Node {
    const items: Node[] = []
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') {
      let atom = this.atom()
      for (;;) {
        const q = this.quantifier()
        if (!q) break
        atom = { t: 'rep', node: atom, min: q[0], max: q[1] }
      }
      items.push(atom)
    }
    return { t: 'seq', items }
  }

  quantifier(): [number, number] | null {
    const c = this.s[this.i]
    let q: [number, number] | null = null
    if (c === '*') q = [0, -1]
    else if (c === '+') q = [1, -1]
    else if (c === '?') q = [0, 1]
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i))
      if (!m) return null
      const min = Number(m[1])
      const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3])
      this.i += m[0].length - 1
      q = [min, max]
    }
    if (!q) return null
    this.i++
    if (this.s[this.i] === '?') this.i++ // lazy: the same strings
    return q
  }

  atom(): Node {
    const c = this.s[this.i++] ?? ''
    if (c === '(') {
      if (this.s[this.i] === '?') {
        const m = /^\?(P?<[^>]*>|[imsU-]*:|[imsU-]*\))/.exec(this.s.slice(this.i))
        if (!m) throw new Error('bad group')
        this.i += m[0].length
        if (m[0].endsWith(')')) return { t: 'empty' } // a flag setting such as (?i)
      }
      const inner = this.alt()
      this.i++ // ')'
      return inner
    }
    if (c === '[') return this.cls()
    if (c === '.') return { t: 'set', ranges: PRINTABLE }
    if (c === '^') throw unsupportedOp(9)
    if (c === '$') throw unsupportedOp(10)
    if (c === '\\') return this.escape(false)
    return { t: 'lit', ch: c }
  }

  escape(inClass: boolean): Node {
    const c = this.s[this.i++] ?? ''
    const sets: Record<string, Range[]> = {
      d: DIGIT,
      D: negate(DIGIT),
      w: WORD,
      W: negate(WORD),
      s: SPACE,
      S: negate(SPACE),
    }
    const set = sets[c]
    if (set) return { t: 'set', ranges: set }
    const anchor = { A: 9, z: 10, b: 11, B: 12 }[c]
    if (!inClass && anchor !== undefined) throw unsupportedOp(anchor)
    if (ESCAPES[c]) return { t: 'lit', ch: ESCAPES[c] }
    if (c === 'x') {
      const m = /^(\{([0-9a-fA-F]+)\}|[0-9a-fA-F]{2})/.exec(this.s.slice(this.i))
      if (m) {
        this.i += m[0].length
        return { t: 'lit', ch: String.fromCodePoint(parseInt(m[2] ?? m[1] ?? '0', 16)) }
      }
    }
    if (c === 'p' || c === 'P') {
      // \pL, \p{Greek}: letters stand for every Unicode class here
      const m = /^(\{[^}]*\}|.)/.exec(this.s.slice(this.i))
      this.i += m ? m[0].length : 0
      const letters = POSIX.alpha as Range[]
      return { t: 'set', ranges: c === 'p' ? letters : negate(letters) }
    }
    return { t: 'lit', ch: c }
  }

  cls(): Node {
    let neg = false
    if (this.s[this.i] === '^') {
      neg = true
      this.i++
    }
    const ranges: Range[] = []
    let first = true
    while (this.i < this.s.length && (this.s[this.i] !== ']' || first)) {
      first = false
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.s.slice(this.i))
      if (posix) {
        this.i += posix[0].length
        const r = POSIX[posix[2] ?? ''] ?? []
        ranges.push(...(posix[1] ? negate(r) : r))
        continue
      }
      const lo = this.classChar()
      if (Array.isArray(lo)) {
        ranges.push(...lo)
        continue
      }
      if (this.s[this.i] === '-' && this.s[this.i + 1] !== ']' && this.i + 1 < this.s.length) {
        this.i++
        const hi = this.classChar()
        if (Array.isArray(hi)) throw new Error('bad class range')
        ranges.push([lo, hi])
      } else ranges.push([lo, lo])
    }
    this.i++ // ']'
    return { t: 'set', ranges: neg ? negate(ranges) : ranges }
  }

  /** One class member: a code point, or a whole set for `\d` and the like. */
  classChar(): number | Range[] {
    const c = this.s[this.i++] ?? ''
    if (c !== '\\') return c.codePointAt(0) ?? 0
    const n = this.escape(true)
    if (n.t === 'set') return n.ranges
    if (n.t === 'lit') return n.ch.codePointAt(0) ?? 0
    return []
  }
}

function pick(ranges: Range[]): string {
  const total = ranges.reduce((n, [a, b]) => n + (b - a + 1), 0)
  if (total <= 0) return ''
  let k = Math.floor(Math.random() * total)
  for (const [a, b] of ranges) {
    if (k <= b - a) return String.fromCodePoint(a + k)
    k -= b - a + 1
  }
  return ''
}

function generate(n: Node, out: string[], size: { n: number }): void {
  if (size.n > MAX_OUTPUT)
    throw new Error(`$security.randomStringByRegex: the string would pass ${MAX_OUTPUT} characters`)
  switch (n.t) {
    case 'lit':
    case 'set': {
      const ch = n.t === 'lit' ? n.ch : pick(n.ranges)
      out.push(ch)
      size.n += ch.length
      return
    }
    case 'seq':
      for (const item of n.items) generate(item, out, size)
      return
    case 'alt':
      generate(n.options[Math.floor(Math.random() * n.options.length)] as Node, out, size)
      return
    case 'rep': {
      const max = n.max < 0 ? n.min + OPEN_REPEAT : n.max
      const count = n.min + Math.floor(Math.random() * (max - n.min + 1))
      for (let k = 0; k < count; k++) generate(n.node, out, size)
      return
    }
    case 'empty':
      return
  }
}

/** A random string `pattern` matches; throws on a pattern RE2 refuses. */
export function randomStringByRegex(pattern: string, _flags: unknown[] = []): string {
  try {
    RE2JS.compile(pattern)
  } catch (err) {
    throw new Error(`$security.randomStringByRegex: ${(err as Error).message}`)
  }
  const out: string[] = []
  generate(new Parser(pattern).parse(), out, { n: 0 })
  return out.join('')
}
