/**
 * Completion for rule and filter expressions (pure: no DOM, no network), used by the rule editor
 * and the records page's filter bar. Given the text and the cursor it finds the word being typed
 * and offers what may come there: field names (dotted into relations, `<coll>_via_<field>`
 * back-relations), `@request.*` (rules only), `@collection.<name>.*`, modifiers, date macros,
 * functions and operators.
 */
import type { CollectionModel } from 'pocketbase'

/** One suggestion. */
export interface CompletionOption {
  label: string
  detail?: string
}

/** The range `[from, to)` the chosen label replaces, and the suggestions for it. */
export interface CompletionResult {
  from: number
  to: number
  options: CompletionOption[]
}

/** What the completion knows: the collection the expression runs on, and every collection. */
export interface CompletionContext {
  collection: CollectionModel
  collections: CollectionModel[]
  /** `rule` (API rules: `@request.*` allowed) or `filter` (a list filter: no `@request.*`). */
  mode: 'rule' | 'filter'
}

/** The date macros of `src/core/rules/macros.ts`. */
export const MACROS: readonly CompletionOption[] = [
  ['@now', 'current date and time (UTC)'],
  ['@yesterday', 'now minus 24 hours'],
  ['@tomorrow', 'now plus 24 hours'],
  ['@todayStart', 'today, 00:00:00.000 UTC'],
  ['@todayEnd', 'today, 23:59:59.999 UTC'],
  ['@monthStart', 'first day of this month'],
  ['@monthEnd', 'last moment of this month'],
  ['@yearStart', 'first day of this year'],
  ['@yearEnd', 'last moment of this year'],
  ['@second', 'current second (0-59)'],
  ['@minute', 'current minute (0-59)'],
  ['@hour', 'current hour (0-23)'],
  ['@day', 'day of the month'],
  ['@month', 'month (1-12)'],
  ['@weekday', 'day of the week (0 = Sunday)'],
  ['@year', 'current year'],
].map(([label, detail]) => ({ label: label!, detail }))

/** The comparison and logical operators of the filter syntax. */
export const OPERATORS: readonly CompletionOption[] = [
  ['=', 'equal'],
  ['!=', 'not equal'],
  ['>', 'greater than'],
  ['>=', 'greater than or equal'],
  ['<', 'less than'],
  ['<=', 'less than or equal'],
  ['~', 'contains (like)'],
  ['!~', 'does not contain'],
  ['?=', 'any equal'],
  ['?!=', 'any not equal'],
  ['?>', 'any greater than'],
  ['?>=', 'any greater than or equal'],
  ['?<', 'any less than'],
  ['?<=', 'any less than or equal'],
  ['?~', 'any contains'],
  ['?!~', 'any does not contain'],
  ['&&', 'and'],
  ['||', 'or'],
].map(([label, detail]) => ({ label: label!, detail }))

/** The functions of the filter syntax. */
const FUNCTIONS: readonly CompletionOption[] = [
  { label: 'geoDistance(', detail: 'geoDistance(lonA, latA, lonB, latB) in km' },
  { label: 'strftime(', detail: 'strftime(format, time, ...modifiers)' },
]

const KEYWORDS: readonly CompletionOption[] = [
  { label: 'true', detail: 'boolean' },
  { label: 'false', detail: 'boolean' },
  { label: 'null', detail: 'empty value' },
]

const MODIFIER_DETAILS: Record<string, string> = {
  isset: 'the request sent this key',
  changed: 'the request sent a different value',
  length: 'number of items (multi-value field)',
  each: 'every item (multi-value field)',
  lower: 'lower-case value',
}

const REQUEST_KEYS: readonly CompletionOption[] = [
  { label: 'auth', detail: 'the signed-in record (empty for guests)' },
  { label: 'body', detail: 'the submitted data' },
  { label: 'query', detail: 'the query parameters' },
  { label: 'headers', detail: 'the request headers (lower case, - as _)' },
  { label: 'method', detail: 'GET, POST, PATCH, DELETE…' },
  { label: 'context', detail: 'default, oauth2, otp, password, realtime, protectedFile' },
]

const COMMON_HEADERS: readonly CompletionOption[] = [
  'authorization',
  'content_type',
  'origin',
  'referer',
  'user_agent',
  'x_forwarded_for',
  'x_request_source',
].map((label) => ({ label, detail: 'header' }))

/** The largest number of relation hops the server follows (`MAX_RELATION_DEPTH`). */
const MAX_DEPTH = 6

type Field = CollectionModel['fields'][number]

/** Characters of one identifier-like word: field paths, `@…`, `:modifier`. */
const WORD = /[A-Za-z0-9_.@:]/
const OPERATOR_CHARS = /[=!<>~?&|]/

/** Suggestions for the word at `cursor`; `options` is empty when nothing fits. */
export function complete(text: string, cursor: number, ctx: CompletionContext): CompletionResult {
  cursor = Math.max(0, Math.min(cursor, text.length))
  const none = { from: cursor, to: cursor, options: [] }
  if (insideString(text, cursor)) return none

  let from = cursor
  while (from > 0 && WORD.test(text[from - 1]!)) from--
  const word = text.slice(from, cursor)

  if (word === '') {
    let opStart = cursor
    while (opStart > 0 && OPERATOR_CHARS.test(text[opStart - 1]!)) opStart--
    const op = text.slice(opStart, cursor)
    if (op !== '') {
      const options = OPERATORS.filter((o) => o.label.startsWith(op) && o.label !== op)
      return { from: opStart, to: cursor, options }
    }
    if (afterOperand(text, cursor)) return { from: cursor, to: cursor, options: [...OPERATORS] }
  }
  return { ...completeWord(word, from, ctx), to: cursor }
}

/** Completes one word that starts at `from`. */
function completeWord(
  word: string,
  from: number,
  ctx: CompletionContext,
): { from: number; options: CompletionOption[] } {
  const colon = word.indexOf(':')
  // `@collection.name:alias.field` has a colon that is not a modifier.
  const isAlias = word.startsWith('@collection.') && colon > 0 && word.indexOf('.', colon) > 0
  if (colon >= 0 && !isAlias && word.lastIndexOf(':') === colon) {
    const path = word.slice(0, colon)
    const partial = word.slice(colon + 1)
    return { from: from + colon + 1, options: filter(modifiersFor(path, ctx), partial) }
  }
  const dot = word.lastIndexOf('.')
  const partial = word.slice(dot + 1)
  const at = from + dot + 1
  if (dot < 0) return { from, options: filter(topLevel(ctx, word.startsWith('@')), word) }
  const head = word.slice(0, dot).split('.')
  return { from: at, options: filter(pathOptions(head, ctx), partial) }
}

/** What may start an operand. */
function topLevel(ctx: CompletionContext, atOnly: boolean): CompletionOption[] {
  const at: CompletionOption[] = []
  if (ctx.mode === 'rule') at.push({ label: '@request', detail: 'the current request' })
  at.push({ label: '@collection', detail: 'rows of another collection' })
  at.push(...MACROS)
  if (atOnly) return at
  return [...fieldOptions(ctx.collection, ctx.collections), ...at, ...FUNCTIONS, ...KEYWORDS]
}

/** The options after `head.` (head has no partial segment). */
function pathOptions(head: string[], ctx: CompletionContext): CompletionOption[] {
  const [first, ...rest] = head
  if (first === '@request') {
    if (ctx.mode !== 'rule') return []
    return requestOptions(rest, ctx)
  }
  if (first === '@collection') {
    if (rest.length === 0) {
      return ctx.collections.map((c) => ({ label: c.name, detail: `${c.type} collection` }))
    }
    const [target, ...path] = rest
    const name = target!.split(':')[0]!
    const c = byNameOrId(ctx.collections, name)
    return c ? walk(c, path, ctx.collections) : []
  }
  if (first?.startsWith('@')) return []
  return walk(ctx.collection, head, ctx.collections)
}

/** `@request.<rest>.` */
function requestOptions(rest: string[], ctx: CompletionContext): CompletionOption[] {
  const [top, ...path] = rest
  switch (top) {
    case undefined:
      return [...REQUEST_KEYS]
    case 'auth': {
      const auths = ctx.collections.filter((c) => c.type === 'auth')
      if (path.length === 0) {
        const seen = new Map<string, CompletionOption>()
        seen.set('collectionName', { label: 'collectionName', detail: 'auth collection name' })
        seen.set('collectionId', { label: 'collectionId', detail: 'auth collection id' })
        for (const c of auths) {
          for (const o of fieldOptions(c, ctx.collections, false)) {
            if (!seen.has(o.label)) seen.set(o.label, o)
          }
        }
        return [...seen.values()]
      }
      for (const c of auths) {
        const found = walk(c, path, ctx.collections)
        if (found.length > 0) return found
      }
      return []
    }
    case 'body':
    case 'data':
      return walk(ctx.collection, path, ctx.collections, path.length === 0 ? false : true)
    case 'headers':
      return path.length === 0 ? [...COMMON_HEADERS] : []
    default:
      return []
  }
}

/** Follows `path` (complete segments) from `c` through relations; the fields found at the end. */
function walk(
  c: CollectionModel,
  path: string[],
  all: CollectionModel[],
  backRelations = true,
): CompletionOption[] {
  if (path.length >= MAX_DEPTH) return []
  let current: CollectionModel | undefined = c
  for (const segment of path) {
    if (!current) return []
    current = relationTarget(current, segment, all)
  }
  return current ? fieldOptions(current, all, backRelations) : []
}

/** The collection a relation (or back-relation) segment of `c` leads to. */
function relationTarget(
  c: CollectionModel,
  segment: string,
  all: CollectionModel[],
): CollectionModel | undefined {
  const f = c.fields.find((x) => x.name === segment)
  if (f) return f.type === 'relation' ? byNameOrId(all, String(f.collectionId ?? '')) : undefined
  const via = /^(.+)_via_(.+)$/.exec(segment)
  if (!via) return undefined
  const source = byNameOrId(all, via[1]!)
  const field = source?.fields.find((x) => x.name === via[2])
  return field?.type === 'relation' && field.collectionId === c.id ? source : undefined
}

/** The fields of `c`, then its back-relations (`<coll>_via_<field>`). */
function fieldOptions(
  c: CollectionModel,
  all: CollectionModel[],
  backRelations = true,
): CompletionOption[] {
  const out: CompletionOption[] = c.fields.map((f) => ({
    label: f.name,
    detail: fieldDetail(f, all),
  }))
  if (!backRelations) return out
  for (const other of all) {
    for (const f of other.fields) {
      if (f.type === 'relation' && f.collectionId === c.id) {
        out.push({
          label: `${other.name}_via_${f.name}`,
          detail: `back-relation from ${other.name}`,
        })
      }
    }
  }
  return out
}

function fieldDetail(f: Field, all: CollectionModel[]): string {
  if (f.type !== 'relation') return isMulti(f) ? `${f.type} (multiple)` : f.type
  const target = byNameOrId(all, String(f.collectionId ?? ''))
  return `relation → ${target?.name ?? '?'}${isMulti(f) ? ' (multiple)' : ''}`
}

function isMulti(f: Field): boolean {
  if (f.type === 'relation' || f.type === 'file' || f.type === 'select') {
    return Number(f.maxSelect ?? 1) > 1
  }
  return false
}

/** The modifiers that make sense after `path` (`:isset`/`:changed` only on `@request.body.*`). */
function modifiersFor(path: string, ctx: CompletionContext): CompletionOption[] {
  if (path === '' || (path.startsWith('@request') && ctx.mode !== 'rule')) return []
  if (path.startsWith('@collection.') && !path.slice(12).includes('.')) return []
  const body = path.startsWith('@request.body.') || path.startsWith('@request.data.')
  const names = body ? ['isset', 'changed', 'length', 'each', 'lower'] : ['length', 'each', 'lower']
  return names.map((n) => ({ label: n, detail: MODIFIER_DETAILS[n] }))
}

function byNameOrId(all: CollectionModel[], key: string): CollectionModel | undefined {
  return all.find((c) => c.id === key) ?? all.find((c) => c.name === key)
}

/** Options whose label starts with `prefix` (case-insensitive), exact matches dropped. */
function filter(options: CompletionOption[], prefix: string): CompletionOption[] {
  const p = prefix.toLowerCase()
  return options.filter((o) => o.label.toLowerCase().startsWith(p) && o.label !== prefix)
}

/** Whether the cursor sits inside a quoted string. */
function insideString(text: string, cursor: number): boolean {
  let quote: string | null = null
  for (let i = 0; i < cursor; i++) {
    const ch = text[i]!
    if (quote) {
      if (ch === '\\') i++
      else if (ch === quote) quote = null
    } else if (ch === '"' || ch === "'") {
      quote = ch
    } else if (ch === '/' && text[i + 1] === '/') {
      // A `//` comment runs to the end of the line.
      const nl = text.indexOf('\n', i)
      if (nl < 0 || nl >= cursor) return true
      i = nl
    }
  }
  return quote !== null
}

/** Whether the text before `cursor` (after spaces) ends an operand: an operator may come next. */
function afterOperand(text: string, cursor: number): boolean {
  let i = cursor
  while (i > 0 && /\s/.test(text[i - 1]!)) i--
  if (i === cursor || i === 0) return false
  const ch = text[i - 1]!
  return WORD.test(ch) || ch === ')' || ch === '"' || ch === "'"
}
