/**
 * The `fields` query parameter (reference §0.9, PocketBase `tools/picker`): keeps only the listed
 * keys of a JSON payload, walking dot paths into nested objects and arrays of objects, with `*`
 * for "every key of this level" and the `:excerpt(maxChars, withEllipsis?)` value modifier.
 */

/** Stable codes of a {@link PickerError}. */
export type PickerErrorCode =
  | 'unbalanced_parenthesis'
  | 'missing_field_name'
  | 'invalid_modifier'
  | 'unknown_modifier'
  | 'invalid_modifier_args'

/** A malformed `fields` expression; `message` names the offending part. */
export class PickerError extends Error {
  readonly code: PickerErrorCode

  constructor(code: PickerErrorCode, message: string) {
    super(message)
    this.name = 'PickerError'
    this.code = code
  }
}

/** A value transformation attached to a field with `:name(args)`. */
export interface Modifier {
  readonly name: string
  /** Returns the new value of the field. */
  modify(value: unknown): unknown
}

/** What a listed key asks for: the whole value (maybe modified) or a sub-selection. */
export interface FieldNode {
  /** The key itself was listed, so its value is kept whole (nested paths under it are moot). */
  whole: boolean
  /** The modifier of the whole value; `null` keeps it unchanged. */
  modifier: Modifier | null
  /** Keys picked inside the value, from dot paths. */
  sub: FieldTree
}

/** A parsed `fields` expression: the selection at one nesting level. */
export interface FieldTree {
  keys: Map<string, FieldNode>
  /** Set when `*` was listed at this level: every other key is kept, with this modifier. */
  star: { modifier: Modifier | null } | null
}

/** Keys of the wrapper of a list result (reference §0.8), which the picker leaves intact. */
const LIST_KEYS = ['items', 'page', 'perPage', 'totalItems', 'totalPages'] as const

/**
 * Returns a copy of `data` holding only the selected fields; `fields` is the raw query value
 * (parsed here) or the result of {@link parseFields}. An empty expression returns `data` itself.
 * A list result is picked item by item; anything else, auth responses included, as a whole.
 * The input is never mutated. Throws a {@link PickerError} on a malformed expression.
 */
export function pickFields(data: unknown, fields: string | FieldTree): unknown {
  const tree = typeof fields === 'string' ? parseFields(fields) : fields
  if (tree.keys.size === 0 && tree.star === null) return data
  if (isListResult(data)) return { ...data, items: pickValue(data.items, tree) }
  return pickValue(data, tree)
}

/**
 * Parses a `fields` expression once, e.g. `id,expand.author.name,*,body:excerpt(200,true)`.
 * Commas inside parentheses do not split; spaces around entries are ignored; empty entries are
 * skipped; a repeated entry replaces the earlier one. Throws a {@link PickerError}.
 */
export function parseFields(fields: string): FieldTree {
  const root = newTree()
  for (const entry of splitEntries(fields)) {
    const colon = entry.indexOf(':')
    const path = (colon < 0 ? entry : entry.slice(0, colon)).trim()
    const modifier = colon < 0 ? null : parseModifier(entry.slice(colon + 1), entry)
    if (path === '') {
      throw new PickerError('missing_field_name', `Missing field name before ":" in "${entry}".`)
    }
    const segments = path.split('.')
    let tree = root
    for (let i = 0; i < segments.length - 1; i++) tree = nodeOf(tree, segments[i] ?? '').sub
    const last = segments[segments.length - 1] ?? ''
    if (last === '*') tree.star = { modifier }
    else {
      const node = nodeOf(tree, last)
      node.whole = true
      node.modifier = modifier
    }
  }
  return root
}

function newTree(): FieldTree {
  return { keys: new Map(), star: null }
}

function nodeOf(tree: FieldTree, key: string): FieldNode {
  let node = tree.keys.get(key)
  if (!node) {
    node = { whole: false, modifier: null, sub: newTree() }
    tree.keys.set(key, node)
  }
  return node
}

/** Splits on commas outside parentheses, trimming each entry and dropping empty ones. */
function splitEntries(fields: string): string[] {
  const entries: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < fields.length; i++) {
    const ch = fields[i]
    if (ch === '(') depth++
    else if (ch === ')' && depth > 0) depth--
    else if (ch === ',' && depth === 0) {
      entries.push(fields.slice(start, i).trim())
      start = i + 1
    }
  }
  const last = fields.slice(start).trim()
  if (depth > 0) {
    throw new PickerError('unbalanced_parenthesis', `Unbalanced parenthesis in "${last}".`)
  }
  entries.push(last)
  return entries.filter((e) => e !== '')
}

const MODIFIER_RE = /^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(([^()]*)\))?$/

function parseModifier(raw: string, entry: string): Modifier {
  const m = MODIFIER_RE.exec(raw.trim())
  if (!m) {
    throw new PickerError(
      'invalid_modifier',
      `Invalid modifier "${raw.trim()}" in "${entry}": expected name(args).`,
    )
  }
  const name = m[1] ?? ''
  const args = m[2] === undefined || m[2].trim() === '' ? [] : m[2].split(',').map((a) => a.trim())
  if (name === 'excerpt') return excerptModifier(args, entry)
  throw new PickerError(
    'unknown_modifier',
    `Unknown modifier "${name}" in "${entry}": the only modifier is excerpt(maxChars, withEllipsis?).`,
  )
}

const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True'])
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False'])

function excerptModifier(args: string[], entry: string): Modifier {
  const usage = `in "${entry}": expected excerpt(maxChars, withEllipsis?)`
  if (args.length === 0) {
    throw new PickerError('invalid_modifier_args', `Missing maxChars argument ${usage}.`)
  }
  if (args.length > 2) {
    throw new PickerError('invalid_modifier_args', `Too many arguments ${usage}.`)
  }
  const rawMax = args[0] ?? ''
  const max = /^\d{1,9}$/.test(rawMax) ? Number(rawMax) : 0
  if (max <= 0) {
    throw new PickerError(
      'invalid_modifier_args',
      `Argument maxChars must be a positive integer, got "${rawMax}" ${usage}.`,
    )
  }
  const rawEllipsis = args[1]
  let withEllipsis = false
  if (rawEllipsis !== undefined) {
    if (TRUE_WORDS.has(rawEllipsis)) withEllipsis = true
    else if (!FALSE_WORDS.has(rawEllipsis)) {
      throw new PickerError(
        'invalid_modifier_args',
        `Argument withEllipsis must be a boolean, got "${rawEllipsis}" ${usage}.`,
      )
    }
  }
  return {
    name: 'excerpt',
    modify: (value) => (typeof value === 'string' ? excerpt(value, max, withEllipsis) : value),
  }
}

type JsonObject = Record<string, unknown>

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function isListResult(v: unknown): v is JsonObject & { items: unknown[] } {
  if (!isObject(v) || !Array.isArray(v.items)) return false
  const keys = Object.keys(v)
  return (
    keys.length === LIST_KEYS.length &&
    LIST_KEYS.every((k) => k === 'items' || typeof v[k] === 'number')
  )
}

/** Resolves `toJSON` as `JSON.stringify` would, so models and dates pick like their JSON. */
function toPlain(value: unknown, key: string): unknown {
  if (typeof value === 'object' && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON
    if (typeof toJSON === 'function') return (toJSON as (k: string) => unknown).call(value, key)
  }
  return value
}

/** A value still to pick, and where its picked copy goes. */
interface PickTask {
  value: unknown
  tree: FieldTree
  key: string
  target: unknown[] | JsonObject
  slot: string | number
}

/**
 * Picks `value` with an explicit stack rather than recursion: data nested thousands of levels
 * deep (a json field, an array of arrays) must not overflow the call stack.
 */
function pickValue(value: unknown, tree: FieldTree): unknown {
  const root: JsonObject = {}
  const stack: PickTask[] = [{ value, tree, key: '', target: root, slot: 'value' }]
  while (stack.length > 0) {
    const task = stack.pop()!
    const v = toPlain(task.value, task.key)
    let picked: unknown = v
    // NB: like PocketBase, only objects are picked; scalars under a dot path are kept as they are.
    if (Array.isArray(v)) {
      const out = new Array<unknown>(v.length)
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i], tree: task.tree, key: String(i), target: out, slot: i })
      }
      picked = out
    } else if (isObject(v)) {
      picked = pickObject(v, task.tree, stack)
    }
    assign(task.target, task.slot, picked)
  }
  return root.value
}

/** Copies the selected keys of `obj`; values picked further are queued on `stack`. */
function pickObject(obj: JsonObject, tree: FieldTree, stack: PickTask[]): JsonObject {
  const out: JsonObject = {}
  const later: PickTask[] = []
  for (const k of Object.keys(obj)) {
    const node = tree.keys.get(k)
    if (node && !node.whole) {
      assign(out, k, undefined) // keeps the key order; the picked value comes later
      later.push({ value: obj[k], tree: node.sub, key: k, target: out, slot: k })
    } else if (node) assign(out, k, applyModifier(node.modifier, obj[k], k))
    else if (tree.star) assign(out, k, applyModifier(tree.star.modifier, obj[k], k))
  }
  for (let i = later.length - 1; i >= 0; i--) stack.push(later[i]!)
  return out
}

function assign(target: unknown[] | JsonObject, slot: string | number, value: unknown): void {
  if (slot === '__proto__') {
    // NB: a plain assignment would set the prototype instead of an own key.
    Object.defineProperty(target, slot, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  } else (target as Record<string | number, unknown>)[slot] = value
}

function applyModifier(modifier: Modifier | null, value: unknown, key: string): unknown {
  return modifier ? modifier.modify(toPlain(value, key)) : value
}

/** A set of space-separated words. */
function words(list: string): ReadonlySet<string> {
  return new Set(list.split(' '))
}

/** Elements whose content never reaches an excerpt (PocketBase's list, plus title/noscript). */
const EXCLUDED_TAGS = words(
  'head title style script noscript iframe embed applet object svg math img picture dialog template button form textarea input select option',
)

/** Elements whose content is raw text: no tags inside until the matching end tag. */
const RAW_TEXT_TAGS = words('script style textarea title xmp iframe noembed noframes noscript')

const VOID_TAGS = words('area base br col embed hr img input link meta param source track wbr')

/** Phrasing elements: no word break at their edges (`<b>a</b>b` reads "ab"). */
const INLINE_TAGS = words(
  'a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd label mark q s samp small span strike strong sub sup time tt u var',
)

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
  hellip: '\u2026',
  mdash: '\u2014',
  ndash: '\u2013',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  laquo: '\u00ab',
  raquo: '\u00bb',
  bull: '\u2022',
  middot: '\u00b7',
  euro: '\u20ac',
}

const ENTITY_RE = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));/g
const HTML_SPACE_RE = /[ \t\n\f\r]+/g
const TAG_NAME_RE = /[^\s/>]*/y

/** Decodes numeric references and the common named entities; unknown names stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(ENTITY_RE, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED_ENTITIES[name] ?? whole
    const cp = dec !== undefined ? Number(dec) : parseInt(hex ?? '', 16)
    const valid = cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff)
    return valid ? String.fromCodePoint(cp) : '\ufffd'
  })
}

/**
 * The plain text of an HTML fragment, cut to `maxChars` code points: tags dropped, the content
 * of script/style/form-like elements skipped, entities decoded, whitespace collapsed, and `...`
 * appended when `withEllipsis` is set and the text was cut.
 */
export function excerpt(html: string, maxChars: number, withEllipsis = false): string {
  let text = htmlToText(html)
  if (text.length > maxChars) {
    let end = 0
    let count = 0
    for (const ch of text) {
      if (count === maxChars) break
      end += ch.length
      count++
    }
    if (end < text.length) {
      text = text.slice(0, end).trimEnd()
      if (withEllipsis) text += '...'
    }
  }
  return text
}

function htmlToText(html: string): string {
  const parts: string[] = []
  // While inside an excluded element: its name and how many of them are open.
  let skipTag = ''
  let skipDepth = 0
  let i = 0
  while (i < html.length) {
    const lt = html.indexOf('<', i)
    const end = lt < 0 ? html.length : lt
    if (skipDepth === 0 && end > i) parts.push(decodeEntities(html.slice(i, end)))
    if (lt < 0) break
    const next = html[lt + 1] ?? ''
    if (html.startsWith('<!--', lt)) {
      const close = html.indexOf('-->', lt + 4)
      i = close < 0 ? html.length : close + 3
    } else if (next === '!' || next === '?') {
      const close = html.indexOf('>', lt)
      i = close < 0 ? html.length : close + 1
    } else if (next === '/' || /[A-Za-z]/.test(next)) {
      const closing = next === '/'
      TAG_NAME_RE.lastIndex = lt + (closing ? 2 : 1)
      const name = (TAG_NAME_RE.exec(html)?.[0] ?? '').toLowerCase()
      const tagEnd = findTagEnd(html, TAG_NAME_RE.lastIndex)
      i = tagEnd + 1
      const selfClosing = !closing && html[tagEnd - 1] === '/'
      if (skipDepth > 0) {
        if (name === skipTag) skipDepth += closing ? -1 : selfClosing ? 0 : 1
        continue
      }
      if (!INLINE_TAGS.has(name)) parts.push(' ')
      if (closing || selfClosing || VOID_TAGS.has(name)) continue
      if (RAW_TEXT_TAGS.has(name)) {
        const endTag = new RegExp(`</${name}`, 'gi')
        endTag.lastIndex = i
        const close = endTag.exec(html)?.index ?? -1
        const rawEnd = close < 0 ? html.length : close
        if (!EXCLUDED_TAGS.has(name)) parts.push(html.slice(i, rawEnd))
        i = close < 0 ? html.length : findTagEnd(html, close + 2) + 1
      } else if (EXCLUDED_TAGS.has(name)) {
        skipTag = name
        skipDepth = 1
      }
    } else {
      if (skipDepth === 0) parts.push('<')
      i = lt + 1
    }
  }
  return parts.join('').replace(HTML_SPACE_RE, ' ').trim()
}

/**
 * Index of the `>` closing a tag whose attributes start at `from`; a quote opens a value only
 * right after `=`, so `title="a>b"` holds a `>` while `it's` is plain text.
 */
function findTagEnd(html: string, from: number): number {
  let afterEquals = false
  for (let j = from; j < html.length; j++) {
    const ch = html[j] ?? ''
    if (ch === '>') return j
    if (afterEquals && (ch === '"' || ch === "'")) {
      const close = html.indexOf(ch, j + 1)
      if (close < 0) return html.length
      j = close
      afterEquals = false
    } else if (ch === '=') afterEquals = true
    else if (!/\s/.test(ch)) afterEquals = false
  }
  return html.length
}
