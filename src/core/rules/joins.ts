/**
 * The joins a field path needs: relations, back-relations, `@collection` and `json_each`
 * expansions. Each is a `LEFT JOIN` registered in a `JoinSink`, so a missing link yields NULLs.
 */
import { FilterSyntaxError, type FilterNode } from '../../tools/filter/index.js'
import { column, ident, param, raw, sql, type Sql } from '../../store/sql.js'
import type { Collection, Field } from '../collections/model.js'
import { JoinSink, RuleError, isMultiField, type CompileState } from './context.js'
import { parseCached } from './ast-cache.js'

/** Where a path walk stands: the collection, its alias, and whether rows may repeat. */
export interface PathBase {
  collection: Collection
  alias: string
  multi: boolean
  /** Join-scope key of this position, so equal paths share their joins. */
  key: string
}

const on = (alias: string, table: string, cond: Sql): Sql =>
  sql`LEFT JOIN ${ident(table)} AS ${ident(alias)} ON ${cond}`

/**
 * In a client filter or sort of a non-superuser, joined collections must be listable: a null
 * listRule refuses the path; a non-empty one becomes a condition of the join scope, as PocketBase
 * applies it: a row of the scope whose joined record the requester cannot list is dropped (so a
 * record whose only related records are hidden matches nothing, whatever the rest of the filter),
 * while a link to nothing (no related record) stays.
 */
function listRuleCondition(
  state: CompileState,
  target: Collection,
  alias: string,
  path: string,
): Sql | null {
  if (!state.ctx.restricted) return null
  if (target.listRule === null) {
    throw new RuleError(`cannot filter by "${path}": only superusers can list "${target.name}"`)
  }
  if (target.listRule.trim() === '') return null
  let node: FilterNode
  try {
    node = parseCached(target.listRule)
  } catch (e) {
    if (e instanceof FilterSyntaxError) {
      throw new RuleError(`the listRule of "${target.name}" is invalid`)
    }
    throw e
  }
  const nested = state.nested(target, alias)
  return nested.finish(nested.compileNode(node))
}

/** `LEFT JOIN <target> AS <alias> ON <cond>`, the target's listRule added to the scope's conditions. */
function joinTarget(
  state: CompileState,
  sink: JoinSink,
  target: Collection,
  alias: string,
  path: string,
  cond: Sql,
): Sql {
  const rule = listRuleCondition(state, target, alias, path)
  if (rule) sink.conditions.push(sql`(${column(alias, 'id')} IS NULL OR (${rule}))`)
  return on(alias, target.name, cond)
}

/** Joins the target of relation `field` at `base`; multi relations expand through json_each. */
export function joinRelation(
  state: CompileState,
  sink: JoinSink,
  base: PathBase,
  field: Field,
  path: string,
): PathBase {
  const target = relationTarget(state, field)
  const key = `${base.key}.${field.name}`
  const source = column(base.alias, field.name)
  if (!isMultiField(field)) {
    const alias = sink.join(key, 'r', (a) =>
      joinTarget(state, sink, target, a, path, sql`${column(a, 'id')} = ${source}`),
    )
    return { collection: target, alias, multi: base.multi, key }
  }
  const each = joinEach(state, sink, `${key}:each`, source)
  const alias = sink.join(key, 'r', (a) =>
    joinTarget(state, sink, target, a, path, sql`${column(a, 'id')} = ${each}`),
  )
  return { collection: target, alias, multi: true, key }
}

/** Joins the rows of `ids` (one id, or a JSON array of ids when `multi`) of `target`. */
export function joinIds(
  state: CompileState,
  sink: JoinSink,
  key: string,
  target: Collection,
  ids: Sql,
  multi: boolean,
): PathBase {
  const value = multi ? joinEach(state, sink, `${key}:each`, ids) : ids
  const alias = sink.join(key, 'r', (a) => on(a, target.name, sql`${column(a, 'id')} = ${value}`))
  return { collection: target, alias, multi, key }
}

/** `LEFT JOIN json_each(expr) ON 1 = 1`; returns the item value expression. */
export function joinEach(state: CompileState, sink: JoinSink, key: string, expr: Sql): Sql {
  const { dialect } = state.ctx
  const alias = sink.join(
    key,
    'j',
    (a) => sql`LEFT JOIN ${dialect.jsonEach(expr, a).from} ON 1 = 1`,
  )
  return dialect.jsonEach(expr, alias).value
}

/** A back-relation `<collection>_via_<field>` seen from `base`, before it is joined. */
interface BackRelation {
  source: Collection
  field: Field
  /** Whether the current row has at most one back-related record (single, unique field). */
  unique: boolean
  /** `<alias>` points to the current row (`<alias>.field = id`, or its JSON list holds it). */
  pointsHere(alias: string): Sql
}

/** The back-relation `name` at `base`, or null when `name` is not one. */
function backRelation(state: CompileState, base: PathBase, name: string): BackRelation | null {
  const m = /^(\w+)_via_(\w+)$/.exec(name)
  if (!m) return null
  const source = state.ctx.findCollection(m[1]!)
  const field = source?.fields.find((f) => f.name === m[2])
  if (!source || !field) return null
  const target = field.type === 'relation' ? relationTarget(state, field) : undefined
  if (target?.id !== base.collection.id) {
    throw new RuleError(
      `invalid back-relation "${name}": "${m[2]}" does not point to "${base.collection.name}"`,
    )
  }
  const id = column(base.alias, 'id')
  const multiField = isMultiField(field)
  return {
    source,
    field,
    unique: !multiField && source.type !== 'view' && hasUniqueIndex(source, field),
    pointsHere: (a) => {
      if (!multiField) return sql`${column(a, field.name)} = ${id}`
      const each = state.ctx.dialect.jsonEach(column(a, field.name), state.nextAlias('j'))
      return sql`EXISTS (SELECT 1 FROM ${each.from} WHERE ${each.value} = ${id})`
    },
  }
}

/**
 * Joins the back-relation `<collection>_via_<field>` at `base`: the records of that collection
 * whose relation field points to the current row. Returns null when `name` is not one.
 */
export function joinBackRelation(
  state: CompileState,
  sink: JoinSink,
  base: PathBase,
  name: string,
  path: string,
): PathBase | null {
  const back = backRelation(state, base, name)
  if (!back) return null
  const { source } = back
  const key = `${base.key}.${name}`
  const alias = sink.join(key, 'b', (a) =>
    joinTarget(state, sink, source, a, path, back.pointsHere(a)),
  )
  return { collection: source, alias, multi: base.multi || !back.unique, key }
}

/** Joins `@collection.<name>[:alias]` with no condition: every row of it, multi-valued. */
export function joinCollection(
  state: CompileState,
  sink: JoinSink,
  name: string,
  tag: string,
): PathBase {
  const target = state.ctx.findCollection(name)
  if (!target) throw new RuleError(`unknown collection "${name}" in "@collection.${name}"`)
  const key = `@collection.${target.id}:${tag}`
  const alias = sink.join(key, 'c', (a) => on(a, target.name, raw('1 = 1')))
  return { collection: target, alias, multi: true, key }
}

/** Joins the authenticated record's own row (for `@request.auth.<relation>.…`). */
export function joinAuth(
  state: CompileState,
  sink: JoinSink,
  auth: Collection,
  id: unknown,
): PathBase {
  const alias = sink.join('@request.auth', 'a', (a) =>
    on(a, auth.name, sql`${column(a, 'id')} = ${param(id)}`),
  )
  return { collection: auth, alias, multi: false, key: '@request.auth' }
}

/** The collection a relation field points to. */
export function relationTarget(state: CompileState, field: Field): Collection {
  const id = field.options.collectionId
  const target = typeof id === 'string' ? state.ctx.findCollection(id) : undefined
  if (!target) throw new RuleError(`the relation "${field.name}" points to a missing collection`)
  return target
}

/** True when `field` has a single-column unique index (no WHERE) or the unique flag. */
function hasUniqueIndex(collection: Collection, field: Field): boolean {
  if (field.unique) return true
  const name = field.name.toLowerCase()
  return collection.indexes.some((text) => {
    const m = /^\s*CREATE\s+UNIQUE\s+INDEX\b[^(]*\(([^()]*)\)\s*;?\s*$/i.exec(text)
    if (!m) return false
    const cols = m[1]!.split(',')
    const col = cols[0]!
      .trim()
      .split(/\s+/)[0]!
      .replace(/^[`"[]|[`"\]]$/g, '')
    return cols.length === 1 && col.toLowerCase() === name
  })
}
