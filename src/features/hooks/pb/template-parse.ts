/**
 * The parser of `$template`'s Go template syntax (the part real apps use): text and `{{ }}`
 * actions with `{{-`/`-}}` trimming and comments, pipelines (`.a.b`, `$x.y`, `$`, literals,
 * function calls, `|`, parentheses), `$x := …`/`$x = …`, `if`/`else if`/`else`, `range` (with
 * `$i, $v :=`), `with`, `define`, `template`, `block`. Every named template lands in one set.
 */

export type Arg =
  | { k: 'dot'; chain: string[] }
  | { k: 'var'; name: string; chain: string[] }
  | { k: 'func'; name: string }
  | { k: 'lit'; v: unknown }
  | { k: 'pipe'; pipe: Pipe; chain: string[] }

export interface Pipe {
  decl: string[]
  assign: boolean
  cmds: Arg[][]
}

export type Node =
  | { k: 'text'; s: string }
  | { k: 'action'; pipe: Pipe }
  | { k: 'if' | 'with'; pipe: Pipe; then: Node[]; else: Node[] | null }
  | { k: 'range'; pipe: Pipe; then: Node[]; else: Node[] | null }
  | { k: 'template'; name: string; pipe: Pipe | null }
  | { k: 'break' | 'continue' }

/** The named templates of one set: a file's top level under its base name, each `define`. */
export type TemplateSet = Map<string, Node[]>

type Piece = { t: 'text'; s: string } | { t: 'action'; s: string; line: number }

function fail(name: string, line: number, msg: string): never {
  throw new Error(`template: ${name}:${line}: ${msg}`)
}

/** Splits the source into text and actions, applying the trim markers and dropping comments. */
function split(src: string, name: string): Piece[] {
  const out: Piece[] = []
  let i = 0
  let trimNext = false
  while (i < src.length) {
    const open = src.indexOf('{{', i)
    let text = open === -1 ? src.slice(i) : src.slice(i, open)
    if (trimNext) text = text.replace(/^\s+/, '')
    trimNext = false
    if (open === -1) {
      out.push({ t: 'text', s: text })
      break
    }
    const line = src.slice(0, open).split('\n').length
    let start = open + 2
    if (/^-\s/.test(src.slice(start))) {
      text = text.replace(/\s+$/, '')
      start += 1
    }
    out.push({ t: 'text', s: text })
    const close = findClose(src, start)
    if (close === -1) fail(name, line, 'unclosed action')
    let end = close
    if (/\s-$/.test(src.slice(start, close))) {
      end = close - 1
      trimNext = true
    }
    const body = src.slice(start, end).trim()
    if (!(body.startsWith('/*') && body.endsWith('*/'))) out.push({ t: 'action', s: body, line })
    i = close + 2
  }
  return out
}

/** The `}}` closing an action, skipping quoted strings. */
function findClose(src: string, from: number): number {
  for (let i = from; i < src.length; i++) {
    const c = src[i]
    if (c === '"' || c === '`' || c === "'") {
      const q = c
      for (i++; i < src.length && src[i] !== q; i++) if (src[i] === '\\' && q !== '`') i++
    } else if (c === '}' && src[i + 1] === '}') return i
  }
  return -1
}

const TOKEN =
  /\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|('(?:[^'\\]|\\.)+')|(:=|=|\||\(|\)|,)|(\$[A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)|(\.(?:[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)?)|([-+]?(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+))|([A-Za-z_][A-Za-z0-9_]*)|(\.[A-Za-z0-9_.]+))/y

function tokens(s: string, name: string, line: number): string[] {
  const out: string[] = []
  TOKEN.lastIndex = 0
  while (TOKEN.lastIndex < s.length) {
    if (/^\s*$/.test(s.slice(TOKEN.lastIndex))) break
    const at = TOKEN.lastIndex
    const m = TOKEN.exec(s)
    if (!m) fail(name, line, `unexpected "${s.slice(at).trim().slice(0, 20)}" in command`)
    out.push(m[0].trim())
  }
  return out
}

function unquote(tok: string): string {
  if (tok.startsWith('`')) return tok.slice(1, -1)
  return JSON.parse(tok.startsWith("'") ? `"${tok.slice(1, -1)}"` : tok) as string
}

class PipeParser {
  i = 0
  constructor(
    readonly toks: string[],
    readonly name: string,
    readonly line: number,
  ) {}

  pipe(): Pipe {
    const decl: string[] = []
    let assign = false
    const look = this.toks.slice(this.i)
    const eq = look.findIndex((t) => t === ':=' || t === '=')
    if (
      eq > 0 &&
      look.slice(0, eq).every((t, j) => (j % 2 === 0 ? t.startsWith('$') : t === ','))
    ) {
      for (let j = 0; j < eq; j += 2) decl.push(look[j] as string)
      assign = look[eq] === '='
      this.i += eq + 1
    }
    const cmds: Arg[][] = [this.command()]
    while (this.toks[this.i] === '|') {
      this.i++
      cmds.push(this.command())
    }
    return { decl, assign, cmds }
  }

  command(): Arg[] {
    const args: Arg[] = []
    while (this.i < this.toks.length && this.toks[this.i] !== '|' && this.toks[this.i] !== ')')
      args.push(this.operand())
    if (args.length === 0) fail(this.name, this.line, 'missing value for command')
    return args
  }

  operand(): Arg {
    const t = this.toks[this.i++] ?? ''
    if (t === '(') {
      const pipe = this.pipe()
      if (this.toks[this.i++] !== ')') fail(this.name, this.line, 'unclosed left paren')
      const next = this.toks[this.i]
      let chain: string[] = []
      if (next?.startsWith('.') && next.length > 1) {
        chain = next.slice(1).split('.')
        this.i++
      }
      return { k: 'pipe', pipe, chain }
    }
    if (t.startsWith('"') || t.startsWith('`') || t.startsWith("'")) {
      const s = unquote(t)
      return { k: 'lit', v: t.startsWith("'") ? s.codePointAt(0) : s }
    }
    if (t === '.') return { k: 'dot', chain: [] }
    if (t.startsWith('.')) {
      if (/^\.\d/.test(t)) return { k: 'lit', v: Number(t) }
      return { k: 'dot', chain: t.slice(1).split('.') }
    }
    if (t.startsWith('$')) {
      const [v = '$', ...chain] = t.split('.')
      return { k: 'var', name: v, chain }
    }
    if (/^[-+]?[\d]/.test(t)) return { k: 'lit', v: Number(t) }
    if (t === 'true' || t === 'false') return { k: 'lit', v: t === 'true' }
    if (t === 'nil') return { k: 'lit', v: null }
    if (/^[A-Za-z_]/.test(t)) return { k: 'func', name: t }
    return fail(this.name, this.line, `unexpected "${t}" in operand`)
  }
}

function parsePipe(s: string, name: string, line: number): Pipe {
  const p = new PipeParser(tokens(s, name, line), name, line)
  const pipe = p.pipe()
  if (p.i < p.toks.length) fail(name, line, `unexpected "${p.toks[p.i]}" in operand`)
  return pipe
}

/** The template name and optional pipeline of `template "x" .`/`block "x" .`/`define "x"`. */
function nameAndPipe(rest: string, name: string, line: number): { n: string; pipe: Pipe | null } {
  const m = /^("(?:[^"\\]|\\.)*"|`[^`]*`)\s*(.*)$/s.exec(rest)
  if (!m) fail(name, line, 'missing template name')
  const pipeText = (m[2] ?? '').trim()
  return { n: unquote(m[1] ?? '""'), pipe: pipeText ? parsePipe(pipeText, name, line) : null }
}

/** Parses `src` into `set`: its top level under `name`, each `define`/`block` under its own. */
export function parseInto(set: TemplateSet, name: string, src: string): void {
  const pieces = split(src, name)
  let pos = 0
  let lastLine = 1
  let ranges = 0 // how many `range`s the parser is inside (`break`/`continue` need one)
  const list = (ends: string[]): { nodes: Node[]; end: string } => {
    const nodes: Node[] = []
    while (pos < pieces.length) {
      const p = pieces[pos++] as Piece
      if (p.t === 'text') {
        if (p.s) nodes.push({ k: 'text', s: p.s })
        continue
      }
      lastLine = p.line
      const [kw = '', ...restWords] = p.s.split(/\s+/)
      const rest = p.s.slice(kw.length).trim()
      if (ends.includes(kw)) return { nodes, end: kw === 'else' ? p.s : kw }
      if (kw === 'if' || kw === 'with' || kw === 'range') nodes.push(control(kw, rest, p.line))
      else if (kw === 'define' || kw === 'block') {
        const { n, pipe } = nameAndPipe(rest, name, p.line)
        const outer = ranges
        ranges = 0 // a named template's body is not inside the range around it
        const body = list(['end'])
        ranges = outer
        if (body.end !== 'end') fail(name, p.line, `unexpected EOF in ${kw}`)
        set.set(n, body.nodes)
        if (kw === 'block') nodes.push({ k: 'template', name: n, pipe })
      } else if (kw === 'template') {
        const { n, pipe } = nameAndPipe(rest, name, p.line)
        nodes.push({ k: 'template', name: n, pipe })
      } else if (kw === 'end' || kw === 'else') fail(name, p.line, `unexpected {{${kw}}}`)
      else if (kw === 'break' || kw === 'continue') {
        if (ranges === 0) fail(name, p.line, `{{${kw}}} outside {{range}}`)
        if (rest !== '') fail(name, p.line, `unexpected "${rest}" in ${kw}`)
        nodes.push({ k: kw })
      } else {
        void restWords
        nodes.push({ k: 'action', pipe: parsePipe(p.s, name, p.line) })
      }
    }
    if (ends.length > 0) fail(name, lastLine, 'unexpected EOF')
    return { nodes, end: '' }
  }
  const control = (kw: 'if' | 'with' | 'range', rest: string, line: number): Node => {
    if (rest === '') fail(name, line, `missing value for ${kw}`)
    const pipe = parsePipe(rest, name, line)
    if (kw === 'range') ranges++
    const then = list(['else', 'end'])
    let otherwise: Node[] | null = null
    if (then.end !== 'end') {
      const elseRest = then.end.slice(4).trim()
      if (elseRest.startsWith('if ') || elseRest.startsWith('with ')) {
        const sub = elseRest.startsWith('if ') ? 'if' : 'with'
        otherwise = [control(sub, elseRest.slice(sub.length).trim(), line)]
      } else {
        const tail = list(['end'])
        otherwise = tail.nodes
      }
    }
    if (kw === 'range') ranges--
    return { k: kw, pipe, then: then.nodes, else: otherwise }
  }
  const top = list([])
  // A file of only defines (and blanks) keeps its name for an earlier definition of it.
  const blank = top.nodes.every((n) => n.k === 'text' && n.s.trim() === '')
  if (!blank || !set.has(name)) set.set(name, top.nodes)
}
