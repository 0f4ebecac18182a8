/**
 * Runs a parsed `$template` set (`template-parse.ts`) on plain script data, as Go's
 * html/template: truth as Go's (false, 0, nil, empty string, list or map are false), maps ranged
 * in key order, values printed as Go's `fmt` prints them (`[a b]`, `map[k:v]`, `<nil>`), the
 * builtin funcs `and or not len index slice print printf println eq ne lt le gt ge html js
 * urlquery` and PocketBase's `raw`. Bounded: 1,000,000 steps, 4 MiB of output, 100 nested
 * template calls; past any of them the render fails with a clear error.
 */
import { HtmlContext, SafeHTML, htmlEscape } from './template-escape.js'
import type { Arg, Node, Pipe, TemplateSet } from './template-parse.js'

const MAX_STEPS = 1_000_000
const MAX_OUTPUT = 4 * 1024 * 1024
const MAX_DEPTH = 100

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof SafeHTML)

/** Go's `fmt` `%v` of a value. */
export function goText(v: unknown): string {
  if (v === null || v === undefined) return '<nil>'
  if (v instanceof SafeHTML) return v.html
  if (typeof v === 'string') return v
  if (typeof v === 'number')
    return Number.isInteger(v) ? String(v) : String(v).replace(/e([-+])(\d)$/, 'e$10$2')
  if (Array.isArray(v)) return `[${v.map(goText).join(' ')}]`
  if (isMap(v))
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goText(v[k])}`)
      .join(' ')}]`
  if (typeof v === 'boolean' || typeof v === 'bigint') return `${v}`
  return typeof v === 'function' ? '<func>' : ''
}

/** Go's template truth. */
function truth(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false
  if (Array.isArray(v)) return v.length > 0
  if (isMap(v)) return Object.keys(v).length > 0
  return true
}

/** Go's `fmt.Sprint`: a space between operands when neither is a string. */
function sprint(args: unknown[]): string {
  let out = ''
  args.forEach((a, i) => {
    if (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string') out += ' '
    out += goText(a)
  })
  return out
}

/** One verb of `sprintf`, before width and padding. */
function verbText(verb: string, flags: string, a: unknown): string {
  switch (verb) {
    case 'd':
      return typeof a === 'number' ? String(Math.trunc(a)) : `%!d(${goText(a)})`
    case 'f': {
      const p = /\.(\d+)/.exec(flags)
      return typeof a === 'number' ? a.toFixed(p ? Number(p[1]) : 6) : `%!f(${goText(a)})`
    }
    case 'q':
      return JSON.stringify(goText(a))
    case 'x':
      return typeof a === 'number'
        ? Math.trunc(a).toString(16)
        : Buffer.from(goText(a)).toString('hex')
    default:
      return goText(a)
  }
}

/** Go's `fmt.Sprintf` for the verbs templates use: %s %v %d %f %q %t %x %%, width and flags. */
function sprintf(fmtText: unknown, args: unknown[]): string {
  let n = 0
  const spec = /%([-+# 0]*)(\d*)(\.\d+)?([svdfqtx%])/g
  return goText(fmtText).replace(
    spec,
    (_m: string, flags: string, width: string, prec: string | undefined, verb: string) => {
      if (verb === '%') return '%'
      if (n >= args.length) return `%!${verb}(MISSING)`
      const text = verbText(verb, prec ?? '', args[n++])
      const w = Number(width || 0)
      if (text.length >= w) return text
      if (flags.includes('-')) return text.padEnd(w)
      if (flags.includes('0') && /^[-\d]/.test(text)) {
        const neg = text.startsWith('-')
        return (neg ? '-' : '') + text.slice(neg ? 1 : 0).padStart(w - (neg ? 1 : 0), '0')
      }
      return text.padStart(w)
    },
  )
}

function lenOf(v: unknown): number {
  if (typeof v === 'string') return Buffer.byteLength(v)
  if (Array.isArray(v)) return v.length
  if (isMap(v)) return Object.keys(v).length
  throw new Error(`error calling len: len of type ${typeof v}`)
}

function indexOf(v: unknown, ...keys: unknown[]): unknown {
  let cur = v
  for (const k of keys) {
    if (Array.isArray(cur) || typeof cur === 'string') {
      const i = Number(k)
      if (!Number.isInteger(i) || i < 0 || i >= cur.length)
        throw new Error(`error calling index: index out of range: ${goText(k)}`)
      cur = cur[i]
    } else if (isMap(cur)) cur = cur[String(k)]
    else if (cur === null || cur === undefined)
      throw new Error('error calling index: index of untyped nil')
    else throw new Error(`error calling index: can't index item of type ${typeof cur}`)
  }
  return cur
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0
  throw new Error('error calling lt: incompatible types for comparison')
}

const FUNCS: Record<string, (...a: unknown[]) => unknown> = {
  not: (a) => !truth(a),
  len: lenOf,
  index: indexOf,
  slice: (v, i = 0, j?: unknown) => {
    if (typeof v === 'string' || Array.isArray(v))
      return v.slice(Number(i), j === undefined ? undefined : Number(j))
    throw new Error("error calling slice: can't slice item")
  },
  print: (...a) => sprint(a),
  printf: (f, ...a) => sprintf(f, a),
  println: (...a) => `${a.map(goText).join(' ')}\n`,
  eq: (a, ...bs) => bs.some((b) => a === b || (a == null && b == null)),
  ne: (a, b) => a !== b,
  lt: (a, b) => compare(a, b) < 0,
  le: (a, b) => compare(a, b) <= 0,
  gt: (a, b) => compare(a, b) > 0,
  ge: (a, b) => compare(a, b) >= 0,
  html: (...a) => htmlEscape(sprint(a)),
  js: (...a) =>
    JSON.stringify(sprint(a))
      .slice(1, -1)
      .replace(/</g, '\\u003C')
      .replace(/>/g, '\\u003E')
      .replace(/'/g, "\\'"),
  urlquery: (...a) => encodeURIComponent(sprint(a)).replace(/%20/g, '+'),
  raw: (s) => new SafeHTML(goText(s)),
}

interface Scope {
  vars: Map<string, unknown>[]
  steps: number
  out: string[]
  size: number
  depth: number
  ctx: HtmlContext
}

function field(v: unknown, chain: string[]): unknown {
  let cur = v
  for (const name of chain) {
    if (isMap(cur)) cur = cur[name]
    else if (cur === null || cur === undefined) return undefined
    else
      throw new Error(
        `can't evaluate field ${name} in type ${Array.isArray(cur) ? 'slice' : typeof cur}`,
      )
  }
  return cur
}

function lookupVar(s: Scope, name: string): unknown {
  for (let i = s.vars.length - 1; i >= 0; i--) {
    const frame = s.vars[i] as Map<string, unknown>
    if (frame.has(name)) return frame.get(name)
  }
  throw new Error(`undefined variable: ${name}`)
}

function arg(s: Scope, a: Arg, dot: unknown): unknown {
  switch (a.k) {
    case 'dot':
      return field(dot, a.chain)
    case 'var':
      return field(lookupVar(s, a.name), a.chain)
    case 'lit':
      return a.v
    case 'pipe':
      return field(pipe(s, a.pipe, dot), a.chain)
    case 'func':
      return call(s, a.name, [], dot, undefined)
  }
}

function call(s: Scope, name: string, args: Arg[], dot: unknown, piped: unknown): unknown {
  if (name === 'and' || name === 'or') {
    const all = [
      ...args.map((x) => () => arg(s, x, dot)),
      ...(piped === undefined ? [] : [() => piped]),
    ]
    let v: unknown
    for (const get of all) {
      v = get()
      if (name === 'and' ? !truth(v) : truth(v)) return v
    }
    return v
  }
  const fn = FUNCS[name]
  if (!fn) throw new Error(`function "${name}" not defined`)
  const values = args.map((x) => arg(s, x, dot))
  if (piped !== undefined) values.push(piped)
  return fn(...values)
}

function pipe(s: Scope, p: Pipe, dot: unknown): unknown {
  let value: unknown = undefined
  p.cmds.forEach((cmd, i) => {
    const [first, ...rest] = cmd as [Arg, ...Arg[]]
    const piped = i === 0 ? undefined : value
    if (first.k === 'func')
      value = call(s, first.name, rest, dot, piped === undefined && i > 0 ? null : piped)
    else {
      if (rest.length > 0 || i > 0) throw new Error("can't give argument to non-function")
      value = arg(s, first, dot)
    }
  })
  for (const name of p.decl) {
    if (p.assign) {
      const frame = [...s.vars].reverse().find((f) => f.has(name))
      if (!frame) throw new Error(`undefined variable: ${name}`)
      frame.set(name, value)
    } else (s.vars[s.vars.length - 1] as Map<string, unknown>).set(name, value)
  }
  return p.decl.length > 0 ? undefined : value
}

function write(s: Scope, text: string): void {
  s.size += text.length
  if (s.size > MAX_OUTPUT) throw new Error(`template: the output passes ${MAX_OUTPUT} bytes`)
  s.out.push(text)
}

function run(s: Scope, set: TemplateSet, nodes: Node[], dot: unknown): void {
  for (const n of nodes) {
    if (++s.steps > MAX_STEPS) throw new Error(`template: the render passes ${MAX_STEPS} steps`)
    switch (n.k) {
      case 'text':
        write(s, s.ctx.feed(n.s))
        break
      case 'action': {
        const v = pipe(s, n.pipe, dot)
        if (n.pipe.decl.length === 0)
          write(
            s,
            s.ctx.escape(v, (x) => (x == null ? '' : goText(x))),
          )
        break
      }
      case 'if':
      case 'with': {
        s.vars.push(new Map())
        const v = pipe(s, { ...n.pipe, decl: [] }, dot)
        for (const name of n.pipe.decl)
          (s.vars[s.vars.length - 1] as Map<string, unknown>).set(name, v)
        if (truth(v)) run(s, set, n.then, n.k === 'with' ? v : dot)
        else if (n.else) run(s, set, n.else, dot)
        s.vars.pop()
        break
      }
      case 'range': {
        const v = pipe(s, { ...n.pipe, decl: [] }, dot)
        const entries: [unknown, unknown][] = Array.isArray(v)
          ? v.map((x, i) => [i, x])
          : isMap(v)
            ? Object.keys(v)
                .sort()
                .map((k) => [k, v[k]])
            : typeof v === 'number'
              ? Array.from({ length: Math.max(0, Math.trunc(v)) }, (_x, i) => [i, i])
              : v == null
                ? []
                : (() => {
                    throw new Error(`range can't iterate over ${goText(v)}`)
                  })()
        if (entries.length === 0) {
          if (n.else) run(s, set, n.else, dot)
          break
        }
        const depth = s.vars.length
        for (const [k, x] of entries) {
          const frame = new Map<string, unknown>()
          const [a, b] = n.pipe.decl
          if (a !== undefined && b !== undefined) {
            frame.set(a, k)
            frame.set(b, x)
          } else if (a !== undefined) frame.set(a, x)
          s.vars.push(frame)
          const jump = iterate(s, set, n.then, x)
          s.vars.length = depth // a jump leaves the frames of the ifs and withs it left
          if (jump === BREAK) break
        }
        break
      }
      case 'break':
        throw BREAK
      case 'continue':
        throw CONTINUE
      case 'template': {
        const body = set.get(n.name)
        if (!body) throw new Error(`template: no such template "${n.name}"`)
        if (s.depth >= MAX_DEPTH)
          throw new Error(`template: exceeded maximum template depth (${MAX_DEPTH})`)
        const d = n.pipe ? pipe(s, n.pipe, dot) : null
        const saved = s.vars
        s.vars = [new Map([['$', d]])]
        s.depth++
        run(s, set, body, d)
        s.depth--
        s.vars = saved
        break
      }
    }
  }
}

/** `{{break}}` and `{{continue}}`, thrown to the `range` running them. */
class Jump extends Error {}
const BREAK = new Jump('{{break}}')
const CONTINUE = new Jump('{{continue}}')

/** One iteration of a `range`: the jump that ended it, if any. */
function iterate(s: Scope, set: TemplateSet, nodes: Node[], dot: unknown): Jump | null {
  try {
    run(s, set, nodes, dot)
    return null
  } catch (jump) {
    if (jump === BREAK) return BREAK
    if (jump === CONTINUE) return CONTINUE
    throw jump
  }
}

/** Renders the template `name` of `set` with `data`. */
export function render(set: TemplateSet, name: string, data: unknown): string {
  const body = set.get(name)
  if (!body) throw new Error(`template: no such template "${name}"`)
  const s: Scope = {
    vars: [new Map([['$', data]])],
    steps: 0,
    out: [],
    size: 0,
    depth: 0,
    ctx: new HtmlContext(),
  }
  run(s, set, body, data)
  return s.out.join('')
}
