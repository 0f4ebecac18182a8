/**
 * Resolves collection field paths (`title`, `data.a.0`, `author.name:lower`,
 * `comments_via_post.message`, `tags:each`) to operands over the filter's join scope.
 */
import { column, sql } from '../../store/sql.js'
import type { Field } from '../collections/model.js'
import {
  RuleError,
  fieldValueType,
  isJsonField,
  isMultiField,
  type CompileState,
  type JoinSink,
  type Operand,
} from './context.js'
import { joinBackRelation, joinEach, joinRelation, type PathBase } from './joins.js'

/** The modifiers a path may end with. */
export const modifiers = ['lower', 'length', 'each', 'isset', 'changed'] as const

/** One modifier (`:lower`, …). */
export type Modifier = (typeof modifiers)[number]

/** The most relation hops (relations and back-relations) one path may take. */
export const MAX_RELATION_DEPTH = 6

/** Splits an identifier into path segments and the modifier of its last segment. */
export function splitPath(name: string): { segments: string[]; modifier: Modifier | null } {
  const segments = name.split('.')
  const last = segments[segments.length - 1]!
  const colon = last.indexOf(':')
  let modifier: Modifier | null = null
  if (colon !== -1) {
    const text = last.slice(colon + 1)
    if (!(modifiers as readonly string[]).includes(text)) {
      throw new RuleError(`unknown modifier ":${text}" in "${name}"`)
    }
    modifier = text as Modifier
    segments[segments.length - 1] = last.slice(0, colon)
  }
  if (segments.some((s) => s === '')) throw new RuleError(`invalid field path "${name}"`)
  return { segments, modifier }
}

/**
 * Walks `segments` from `start`: relations and back-relations join, a JSON field takes the
 * rest as a JSON path, the last segment is a column with its modifier applied. `name` is the
 * whole identifier; its part before `segments` prefixes paths in messages.
 */
export function resolveFieldPath(
  state: CompileState,
  sink: JoinSink,
  start: PathBase,
  segments: readonly string[],
  modifier: Modifier | null,
  name: string,
): Operand {
  const { ctx } = state
  const bare = modifier ? name.slice(0, name.length - modifier.length - 1) : name
  const prefix = bare.slice(0, bare.length - segments.join('.').length)
  let base = start
  let hops = 0
  const hop = (next: PathBase): PathBase => {
    if (++hops > MAX_RELATION_DEPTH) tooDeep(name)
    return next
  }
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!
    const path = prefix + segments.slice(0, i + 1).join('.')
    const last = i === segments.length - 1
    const field = base.collection.fields.find((f) => f.name === seg)
    if (!field) {
      // NB: as in PocketBase, a path cannot end at a back-relation (`posts_via_author:length`).
      if (last && /^\w+_via_\w+$/.test(seg)) {
        throw new RuleError(
          `the back-relation "${path}" must be followed by a field ("${path}.id")`,
        )
      }
      const back = last ? null : joinBackRelation(state, sink, base, seg, path)
      if (!back) throw new RuleError(`unknown field "${path}"`)
      base = hop(back)
      continue
    }
    if (field.hidden && ctx.restricted) throw new RuleError(`the field "${path}" is hidden`)
    if (isJsonField(field)) return jsonPath(state, base, field, segments.slice(i + 1), modifier)
    if (last) return lastField(state, sink, base, field, modifier)
    if (field.type !== 'relation') {
      throw new RuleError(`unknown field "${prefix}${segments.slice(0, i + 2).join('.')}"`)
    }
    // NB: `rel.id` of a single relation is the stored id: no join, so no listRule either, as in
    // PocketBase (the id is the record's own column).
    if (!isMultiField(field) && i === segments.length - 2 && segments[i + 1] === 'id') {
      return lastField(state, sink, base, field, modifier)
    }
    base = hop(joinRelation(state, sink, base, field, path))
  }
  throw new RuleError(`invalid field path "${name}"`)
}

function tooDeep(name: string): never {
  throw new RuleError(`"${name}" goes through more than ${MAX_RELATION_DEPTH} relations`)
}

function lastField(
  state: CompileState,
  sink: JoinSink,
  base: PathBase,
  field: Field,
  modifier: Modifier | null,
): Operand {
  const { dialect, restricted } = state.ctx
  const col = column(base.alias, field.name)
  const common = { fromColumn: true, multi: base.multi } as const
  // NB: non-superusers may only match e-mails their owners made visible.
  const guard =
    restricted && field.name === 'email' && base.collection.type === 'auth'
      ? sql`${column(base.alias, 'emailVisibility')} = TRUE`
      : undefined
  const guarded = guard ? { ...common, guard } : common
  // NB: a multi-valued field without `:each` compares as its JSON text.
  const whole = isMultiField(field) ? dialect.jsonAsText(col) : col
  const type = isMultiField(field) ? 'text' : fieldValueType(field)
  // NB: SQLite's affinity of the column: NUMERIC for number, bool and JSON (multi-valued) ones.
  const affinity = type === 'text' && !isMultiField(field) ? 'text' : 'numeric'
  // NB: as PocketBase, a modifier that does not apply to the field (`title:length`,
  // `views:each`, `title:isset`) is ignored: the field compares as it is.
  const multi = isMultiField(field)
  const listLike = field.type === 'select' || field.type === 'relation' || field.type === 'file'
  if (modifier === 'lower') return { ...guarded, sql: dialect.lower(whole), type: 'text' }
  if (modifier === 'length' && listLike) {
    // NB: counts typed as decimals, so a typed engine compares them with `1.5`.
    const len = multi
      ? dialect.jsonArrayLength(col)
      : sql`(CASE WHEN COALESCE(${col}, '') = '' THEN 0 ELSE 1 END)`
    return { ...common, sql: dialect.typedNumber(len), type: 'number', integer: true }
  }
  if (modifier === 'each' && multi) {
    const value = joinEach(state, sink, `${base.key}.${field.name}:each`, col)
    return { ...guarded, sql: value, type: 'any', multi: true }
  }
  return { ...guarded, sql: whole, type, affinity }
}

/** A JSON field with an optional path (`data.a.0.b`, `geo.lat`); digit segments are indexes. */
function jsonPath(
  state: CompileState,
  base: PathBase,
  field: Field,
  rest: readonly string[],
  modifier: Modifier | null,
): Operand {
  const { dialect } = state.ctx
  const col = column(base.alias, field.name)
  if (modifier && rest.length > 0) {
    // NB: PocketBase reads a modifier after a JSON path as part of its last key, less the colon
    // (`meta.a:isset` reads the key `aisset`), so it always finds NULL there.
    const keys = [...rest.slice(0, -1), `${rest[rest.length - 1]}${modifier}`]
    return jsonPath(state, base, field, keys, null)
  }
  // NB: as PocketBase (strconv.Atoi), a digit run too big for an index is an object key.
  const path = rest.map((s) =>
    /^[0-9]+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : s,
  )
  // NB: as PocketBase, the whole document is read as `json_extract(doc, '$')` too: a JSON
  // string compares as its text, `true` as 1.
  const value = dialect.jsonExtract(col, path)
  const common = { fromColumn: true, multi: base.multi, noCoalesce: true } as const
  if (modifier === 'lower') return { ...common, sql: dialect.lower(value), type: 'json' }
  // NB: other modifiers of the whole document are ignored, as PocketBase ignores them.
  return { ...common, sql: value, type: 'json', json: { doc: col, path } }
}
