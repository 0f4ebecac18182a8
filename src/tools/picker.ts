/**
 * The `fields` query parameter (reference §0.9, PocketBase `tools/picker`): keeps only the listed
 * keys of a JSON payload, walking dot paths into nested objects and arrays of objects, with `*`
 * for "every key of this level" and the `:excerpt(maxChars, withEllipsis?)` value modifier.
 */
import { excerpt } from './excerpt.js'

export { decodeEntities, excerpt } from './excerpt.js'

/** Stable codes of a {@link PickerError}. */
export type PickerErrorCode =
  | 'unbalanced_parenthesis'
  | 'missing_field_name'
  | 'invalid_modifier'
  | 'unknown_modifier'
  | 'invalid_modifier_args'

/** The message of a {@link PickerError}: it always quotes the entry at fault (`… in "a:b"…`). */
export type PickerMessage = `${string} in "${string}`

/** A malformed `fields` expression; `message` names the offending part. */
export class PickerError extends Error {
  readonly code: PickerErrorCode
  declare readonly message: PickerMessage

  constructor(code: PickerErrorCode, message: PickerMessage) {
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
  const usage = `in "${entry}": expected excerpt(maxChars, withEllipsis?)` as const
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
