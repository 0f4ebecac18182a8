/**
 * The load-time check of a `*.pb.js` file: a static scan of its text for what svcbase does not
 * offer, so that a file using it fails when it LOADS (with the file, line and the member's name)
 * instead of a handler answering 500 at request time. PocketBase compiles handlers from their
 * source text too; the scan reads the same text. It finds, outside comments and strings:
 *
 * - `$name.member` where `$name` is a global of the context (`$app`, `$os`, `$apis`,
 *   `$security`, `$template`, `$http`, … and PocketBase's globals svcbase lacks, `$filesystem`, …)
 *   and `member` is not one it offers;
 * - a call of one of PocketBase's global functions or classes that svcbase lacks (`sleep(`,
 *   `new DynamicModel(`, `onBootstrap(`, `arrayOf(`, …), and `require(`.
 *
 * A name the file declares itself (`function sleep`, `const $http = …`) is the file's own and
 * not checked. Members of values (`e.request.x`, `record.x`, `txApp.x`) are not checked here:
 * they still fail when called, naming the member (see `unsupported.ts`).
 */
import { messages } from '../../../core/errors.js'
import { PbUnsupportedError } from './unsupported.js'

/** PocketBase globals svcbase offers no form of at all, checked as calls. */
const EXTRA_CALLS = ['require']

/**
 * The source with comments and the text of string, template and regex literals blanked (every
 * character but a newline becomes a space), so positions and lines stay where they were.
 */
export function blankNonCode(src: string): string {
  const out = src.split('')
  const blank = (from: number, to: number) => {
    for (let k = from; k < to && k < out.length; k++) if (out[k] !== '\n') out[k] = ' '
  }
  const braces: number[] = [] // open-brace depth at each `${` of a template literal
  let depth = 0
  let i = 0
  let last = '' // the last significant code character
  const template = (start: number): number => {
    // from just after a backtick (or a `}` closing `${…}`), to after the closing backtick or `${`
    let k = start
    while (k < src.length) {
      if (src[k] === '\\') k += 2
      else if (src[k] === '`') {
        blank(start, k)
        return k + 1
      } else if (src[k] === '$' && src[k + 1] === '{') {
        blank(start, k)
        braces.push(depth)
        depth++
        return k + 2
      } else k++
    }
    blank(start, k)
    return k
  }
  while (i < src.length) {
    const c = src[i] as string
    const n = src[i + 1]
    if (c === '/' && n === '/') {
      const end = src.indexOf('\n', i)
      blank(i, end === -1 ? src.length : end)
      i = end === -1 ? src.length : end
    } else if (c === '/' && n === '*') {
      const end = src.indexOf('*/', i + 2)
      blank(i, end === -1 ? src.length : end + 2)
      i = end === -1 ? src.length : end + 2
    } else if (c === '"' || c === "'") {
      let k = i + 1
      while (k < src.length && src[k] !== c && src[k] !== '\n') k += src[k] === '\\' ? 2 : 1
      blank(i + 1, k)
      i = k + 1
      last = c
    } else if (c === '`') {
      i = template(i + 1)
      last = '`'
    } else if (c === '/' && (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last))) {
      // a regex literal
      let k = i + 1
      let inClass = false
      while (k < src.length && src[k] !== '\n') {
        if (src[k] === '\\') k++
        else if (src[k] === '[') inClass = true
        else if (src[k] === ']') inClass = false
        else if (src[k] === '/' && !inClass) break
        k++
      }
      blank(i + 1, k)
      i = k + 1
      last = '/'
    } else {
      if (c === '{') depth++
      else if (c === '}') {
        depth--
        if (braces.length > 0 && braces[braces.length - 1] === depth) {
          braces.pop()
          i = template(i + 1)
          last = '`'
          continue
        }
      }
      if (!/\s/.test(c)) last = /[\w$)\]]/.test(c) ? 'w' : c
      i++
    }
  }
  return out.join('')
}

/** The names a file declares itself. */
function declared(code: string): Set<string> {
  const out = new Set<string>()
  const re = /\b(?:function|const|let|var|class)\s+([A-Za-z_$][\w$]*)/g
  for (let m = re.exec(code); m; m = re.exec(code)) out.add(m[1] as string)
  return out
}

interface Finding {
  name: string
  index: number
}

/**
 * Throws a load error naming the first use of something svcbase lacks, at its line and
 * column (and how many other such uses the file has). `globals` are the file's context globals;
 * `missing` the names of PocketBase's global functions and classes svcbase does not offer.
 */
export function checkSupported(
  file: string,
  source: string,
  globals: Record<string, unknown>,
  missing: readonly string[],
): void {
  const code = blankNonCode(source)
  const own = declared(code)
  const found: Finding[] = []
  const member = /(?<![\w$.])(\$[A-Za-z_][\w$]*)\s*\??\.\s*([A-Za-z_$][\w$]*)/g
  for (let m = member.exec(code); m; m = member.exec(code)) {
    const [, obj = '', key = ''] = m
    const target = globals[obj]
    if (own.has(obj) || typeof target !== 'object' || target === null) continue
    if (!(key in target)) found.push({ name: `${obj}.${key}`, index: m.index })
  }
  const names = [...missing, ...EXTRA_CALLS].filter((n) => !own.has(n))
  if (names.length > 0) {
    const call = new RegExp(`(?<![\\w$.])(${names.map(escape).join('|')})\\s*\\(`, 'g')
    for (let m = call.exec(code); m; m = call.exec(code))
      found.push({ name: m[1] as string, index: m.index })
  }
  if (found.length === 0) return
  found.sort((a, b) => a.index - b.index)
  const first = found[0] as Finding
  const before = source.slice(0, first.index).split('\n')
  const line = before.length
  const column = (before[before.length - 1] ?? '').length + 1
  const others = [...new Set(found.slice(1).map((f) => f.name))].filter((n) => n !== first.name)
  const more = others.length > 0 ? ` Also not supported: ${others.join(', ')}.` : ''
  const err = new PbUnsupportedError(
    first.name,
    messages.pbUnsupported({ name: first.name }) + more,
  )
  err.stack = `${err.name}: ${err.message}\n    at ${file}:${line}:${column}`
  throw err
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
