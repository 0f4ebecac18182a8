/**
 * Regex options of text and password fields: PocketBase's (Go RE2) patterns compiled and matched
 * by re2js, a port of RE2 (linear time in the value's length, no backtracking: a pattern such as
 * `^(a+)+$` cannot hang the process), and random strings generated to match an
 * `autogeneratePattern`. A match whose worst case is long runs on the CPU worker pool.
 */

import { randomInt } from 'node:crypto'
import type { RE2JS } from 're2js'
import { CpuPoolBusyError, cpuPool, resolvePackage, type CpuTask } from '../../tools/cpu-pool.js'
import { lazyPackage } from '../../tools/lazy-module.js'
import { ApiError, messages } from '../errors.js'
import { randomString } from '../../tools/ids.js'

/** re2js, loaded with the first pattern that needs it (3 MB resident; most apps need none). */
const re2js = lazyPackage<typeof import('re2js')>('re2js')

/** What a compiled pattern offers: an unanchored test, and its size (the bound of a match). */
export interface CompiledPattern {
  test(value: string): boolean
  programSize(): number
}

const compiled = new Map<string, CompiledPattern>()
const CACHE_LIMIT = 500

/**
 * Patterns that JavaScript's engine reads exactly as RE2 does and runs in linear time: anchored
 * at both ends, one class of ASCII letters, digits, `_` and ranges of them, one repeat (the
 * default `id` pattern `^[a-z0-9]+$` is one). They are matched without loading re2js; every
 * pattern is still checked by re2js when a collection is saved (`patternError`).
 */
const PLAIN_PATTERN =
  /^\^\[(?:[A-Za-z0-9]-[A-Za-z0-9]|[A-Za-z0-9_])+\](?:[+*]|\{\d{1,3}(?:,\d{0,3})?\})\$$/

/** A pattern of {@link PLAIN_PATTERN}'s shape, matched by JavaScript's engine. */
function plainPattern(pattern: string): CompiledPattern {
  const re = new RegExp(pattern)
  return { test: (value) => re.test(value), programSize: () => pattern.length }
}

/**
 * The most steps (the pattern's program size times the value's length, the bound of RE2's
 * simulation) a match may take on the event loop; a longer one runs on a worker thread. At about
 * 20 ns a step this is some 20 ms.
 */
export const MAIN_THREAD_REGEX_STEPS = 1_000_000

/**
 * Compiles a Go (RE2) pattern with re2js, which reads Go's syntax itself: `(?flags)`,
 * `(?P<name>…)`, `\A`, `\z`, `\pL`, `[[:alpha:]]`, `\Q…\E`. Throws on an invalid pattern and on
 * what RE2 refuses (backreferences, lookaround, repeat counts above 1000), as Go's `regexp` does.
 */
export function compilePattern(pattern: string): CompiledPattern {
  const hit = compiled.get(pattern)
  if (hit) return hit
  const re = PLAIN_PATTERN.test(pattern) ? plainPattern(pattern) : re2Compile(pattern)
  if (compiled.size >= CACHE_LIMIT) compiled.clear()
  compiled.set(pattern, re)
  return re
}

/** Compiles with re2js itself. */
function re2Compile(pattern: string): RE2JS {
  return re2js().RE2JS.compile(pattern)
}

/** The compile error of a pattern as a short reason, or `null` when it compiles (by re2js). */
export function patternError(pattern: string): string | null {
  try {
    re2Compile(pattern)
    return null
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    return message.replace(/^error parsing regexp: /, '')
  }
}

/** Tests a value against a Go pattern (unanchored, as `regexp.MatchString`), on this thread. */
export function matchesPattern(pattern: string, value: string): boolean {
  return compilePattern(pattern).test(value)
}

/** The worker side of a long match: the same re2js, the same unanchored test. */
const REGEX_TASK: CpuTask = {
  name: 'svc.regexTest',
  source: `(input, load) => {
    const cache = (globalThis.__svcRegexCache ??= new Map())
    let re = cache.get(input.pattern)
    if (!re) {
      re = load('re2js').RE2JS.compile(input.pattern)
      if (cache.size >= 100) cache.clear()
      cache.set(input.pattern, re)
    }
    return re.test(input.value)
  }`,
  packages: { re2js: resolvePackage('re2js') },
}

/**
 * {@link matchesPattern} without holding the event loop: a match whose bound (program size times
 * length) is above {@link MAIN_THREAD_REGEX_STEPS} runs on the CPU worker pool (which may reject
 * with a 503 when saturated).
 */
export async function matchesPatternAsync(pattern: string, value: string): Promise<boolean> {
  const re = compilePattern(pattern)
  if (re.programSize() * value.length <= MAIN_THREAD_REGEX_STEPS) return re.test(value)
  try {
    return await cpuPool.run<boolean>(REGEX_TASK, { pattern, value })
  } catch (err) {
    if (err instanceof CpuPoolBusyError) throw new ApiError(503, messages.patternBusy, {}, err)
    throw err
  }
}

type Node =
  | { kind: 'set'; chars: string[] }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'rep'; node: Node; min: number; max: number }

/** How many times `*`, `+` and `{n,}` may repeat at most when generating. */
const UNBOUNDED_REPEAT = 10

const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i))
const DIGITS = range(48, 57)
const WORD = [...range(65, 90), ...range(97, 122), ...DIGITS, '_']
const PRINTABLE = range(32, 126)
const complement = (chars: string[]): string[] => PRINTABLE.filter((c) => !chars.includes(c))

const escapes: Record<string, string[]> = {
  d: DIGITS,
  D: complement(DIGITS),
  w: WORD,
  W: complement(WORD),
  s: [' '],
  S: complement([' ', '\t']),
  n: ['\n'],
  t: ['\t'],
}

/** Parses the subset of RE2 syntax that random generation supports. */
class PatternParser {
  private pos = 0

  constructor(private readonly src: string) {}

  parse(): Node {
    const flags = /^\(\?[imsU]+\)/.exec(this.src)
    if (flags) this.pos = flags[0].length
    const node = this.alternation()
    if (this.pos < this.src.length) this.fail(`unexpected "${this.src[this.pos]}"`)
    return node
  }

  private fail(reason: string): never {
    throw new SyntaxError(`${reason} at position ${this.pos}`)
  }

  private peek(): string | undefined {
    return this.src[this.pos]
  }

  private alternation(): Node {
    const options = [this.sequence()]
    while (this.peek() === '|') {
      this.pos++
      options.push(this.sequence())
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options }
  }

  private sequence(): Node {
    const items: Node[] = []
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      const atom = this.atom()
      if (atom) items.push(this.quantified(atom))
    }
    return { kind: 'seq', items }
  }

  private atom(): Node | null {
    const c = this.src[this.pos++]!
    switch (c) {
      case '^':
      case '$':
        return null
      case '(':
        return this.group()
      case '[':
        return { kind: 'set', chars: this.charClass() }
      case '.':
        return { kind: 'set', chars: PRINTABLE }
      case '\\':
        return { kind: 'set', chars: this.escape() }
      case '*':
      case '+':
      case '?':
        return this.fail(`missing repeat argument "${c}"`)
      case '{':
        if (/^\d+(,\d*)?\}/.test(this.src.slice(this.pos))) this.fail('missing repeat argument "{"')
        return { kind: 'set', chars: [c] }
      default:
        return { kind: 'set', chars: [c] }
    }
  }

  private group(): Node {
    if (this.src.startsWith('?:', this.pos)) this.pos += 2
    else if (this.src.startsWith('?P<', this.pos) || this.src.startsWith('?<', this.pos)) {
      const end = this.src.indexOf('>', this.pos)
      if (end < 0) this.fail('unterminated group name')
      this.pos = end + 1
    } else if (this.peek() === '?') this.fail('unsupported group')
    const node = this.alternation()
    if (this.src[this.pos++] !== ')') this.fail('missing closing )')
    return node
  }

  private escape(): string[] {
    const c = this.src[this.pos++]
    if (c === undefined) this.fail('trailing backslash')
    if (/[0-9]/.test(c) || c === 'b' || c === 'B') this.fail(`unsupported escape \\${c}`)
    return escapes[c] ?? [c]
  }

  private charClass(): string[] {
    const negate = this.peek() === '^'
    if (negate) this.pos++
    const chars = new Set<string>()
    let first = true
    for (;;) {
      const c = this.src[this.pos++]
      if (c === undefined) this.fail('missing closing ]')
      if (c === ']' && !first) break
      first = false
      let items: string[]
      if (c === '\\') items = this.escape()
      else items = [c]
      if (items.length === 1 && this.peek() === '-' && this.src[this.pos + 1] !== ']') {
        this.pos++
        let to = this.src[this.pos++]
        if (to === '\\') to = this.escape()[0]
        if (to === undefined) this.fail('missing closing ]')
        const lo = items[0]!.charCodeAt(0)
        const hi = to.charCodeAt(0)
        if (hi < lo) this.fail('invalid character class range')
        items = range(lo, hi)
      }
      for (const item of items) chars.add(item)
    }
    const list = negate ? complement([...chars]) : [...chars]
    if (list.length === 0) this.fail('empty character class')
    return list
  }

  private quantified(node: Node): Node {
    let min: number
    let max: number
    const c = this.peek()
    if (c === '*' || c === '+' || c === '?') {
      this.pos++
      min = c === '+' ? 1 : 0
      max = c === '?' ? 1 : UNBOUNDED_REPEAT
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos))
      if (!m) return node // a literal `{`, as RE2 reads it
      this.pos += m[0].length
      min = Number(m[1])
      max = m[2] === undefined ? min : m[3] ? Number(m[3]) : Math.max(min, UNBOUNDED_REPEAT)
      if (max < min || max > 1000) this.fail('invalid repeat count')
    } else {
      return node
    }
    if (this.peek() === '?') this.pos++ // lazy quantifiers generate alike
    return { kind: 'rep', node, min, max }
  }
}

function emit(node: Node): string {
  switch (node.kind) {
    case 'set':
      return node.chars[randomInt(node.chars.length)]!
    case 'seq':
      return node.items.map(emit).join('')
    case 'alt':
      return emit(node.options[randomInt(node.options.length)]!)
    case 'rep': {
      const n = node.min + randomInt(node.max - node.min + 1)
      let out = ''
      for (let i = 0; i < n; i++) out += emit(node.node)
      return out
    }
  }
}

/**
 * A random string matching `pattern` (CSPRNG). Supports literals, escapes (`\d`, `\w`, …), `.`,
 * character classes with ranges and negation, groups, alternation and the quantifiers `?`, `*`,
 * `+`, `{n}`, `{n,m}` (unbounded ones repeat at most 10 times), e.g. `[a-z0-9]{15}`.
 * Throws a SyntaxError on anything else (backreferences, lookarounds, word boundaries).
 */
export function generateFromPattern(pattern: string): string {
  const simple = simpleClass(pattern)
  if (simple) return randomString(simple.length, simple.alphabet)
  let tree = parsed.get(pattern)
  if (!tree) {
    tree = new PatternParser(pattern).parse()
    if (parsed.size >= 256) parsed.clear()
    parsed.set(pattern, tree)
  }
  return emit(tree)
}

/** Parsed generator patterns, by text (patterns come from a few collection fields). */
const parsed = new Map<string, Node>()
/** The `[class]{n}` fast path, by text: the class's characters and the length. */
const simpleClasses = new Map<string, { alphabet: string; length: number } | null>()

/**
 * The alphabet and length of a pattern of the common form `[a-z0-9]{15}` (ranges and single
 * characters in one class, a fixed count), or null for anything else.
 */
function simpleClass(pattern: string): { alphabet: string; length: number } | null {
  const hit = simpleClasses.get(pattern)
  if (hit !== undefined) return hit
  let out: { alphabet: string; length: number } | null = null
  const m = /^\[((?:[A-Za-z0-9]-[A-Za-z0-9]|[A-Za-z0-9_])+)\]\{(\d+)\}$/.exec(pattern)
  if (m) {
    let alphabet = ''
    for (const part of m[1]!.match(/[A-Za-z0-9]-[A-Za-z0-9]|[A-Za-z0-9_]/g)!) {
      if (part.length === 3) {
        for (let c = part.charCodeAt(0); c <= part.charCodeAt(2); c++)
          alphabet += String.fromCharCode(c)
      } else alphabet += part
    }
    out = { alphabet: [...new Set(alphabet)].join(''), length: Number(m[2]) }
  }
  if (simpleClasses.size >= 256) simpleClasses.clear()
  simpleClasses.set(pattern, out)
  return out
}
