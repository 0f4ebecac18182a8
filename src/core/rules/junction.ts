/**
 * The junction rewrite: an any-of comparison (`?=`, `?~`, `?>`, …) of a multi-valued relation or
 * select of the main row with a known non-empty value (`tags:each ?= 'a'`,
 * `editors.id ?= @request.auth.id`, `editors.name ?~ 'x'`) reads the field's junction table
 * instead of parsing every row's JSON:
 *
 *     <alias>.id IN (SELECT jt.record FROM <junction> AS jt [LEFT JOIN <target> AS r ON r.id =
 *       jt.value] WHERE <the comparison over jt.value / r.col>)
 *
 * The junction holds the non-NULL values of `json_each(<field>)` per record, so the answer is
 * the same as through `(SELECT 1) LEFT JOIN json_each(<field>) ON 1 = 1` when a NULL item (a
 * NULL value, an empty list, a missing related record) cannot match: the operator is one whose
 * comparison with NULL is never true and the other operand is a bound value other than NULL and
 * `''` (which NULL equals). It is the same only when that join is the comparison's alone: the
 * filter's joins are shared by key (`tags:each ?= 'a' && tags:each ?= 'b'` needs one item equal
 * to both), so a first pass (`record`) notes the join keys of every comparison and a second one
 * (`apply`) rewrites those whose keys no other comparison uses and whose other operand joins
 * nothing. The filter language has no NOT, so an `EXISTS` over the shared joins distributes over
 * its ANDs and ORs and each comparison can be decided on its own.
 */
import { visitFilter, type ComparisonNode, type FilterNode } from '../../tools/filter/index.js'
import type { Collection, Field } from '../collections/model.js'
import { parseCached } from './ast-cache.js'
import { isMultiField, type CompileState, type JoinSink, type JunctionPlan } from './context.js'

/** The field names each collection's rules compare with an any-of operator, by rules text. */
const anyOfFields = new WeakMap<Collection, { rules: string; names: ReadonlySet<string> }>()

/**
 * The fields whose items `node`'s any-of comparisons read: the first segment of an own field
 * path followed by `:each` or `.` (`tags:each`, `editors.id`; a bare `tags` is its JSON text).
 */
function collectAnyOf(node: FilterNode, out: Set<string>): void {
  visitFilter<void>(node, {
    comparison: (n) => {
      if (!n.operator.startsWith('?')) return
      for (const side of [n.left, n.right]) {
        if (side.kind !== 'identifier') continue
        const m = /^(\w+)(?::each$|\.)/.exec(side.name)
        if (m) out.add(m[1]!)
      }
    },
    and: () => undefined,
    or: () => undefined,
  })
}

function rulesAnyOf(collection: Collection): ReadonlySet<string> {
  const { listRule, viewRule, createRule, updateRule, deleteRule } = collection
  const auth = collection.authOptions
  const rules = [listRule, viewRule, createRule, updateRule, deleteRule]
  if (auth) rules.push(auth.authRule, auth.manageRule)
  const text = rules.map((r) => r ?? '').join('\u0000')
  const known = anyOfFields.get(collection)
  if (known?.rules === text) return known.names
  const names = new Set<string>()
  for (const rule of rules) {
    if (rule === null || rule.trim() === '') continue
    try {
      collectAnyOf(parseCached(rule), names)
    } catch {
      // A rule that does not parse compares nothing (saving validates rules).
    }
  }
  anyOfFields.set(collection, { rules: text, names })
  return names
}

/**
 * Whether a field has a junction table (`store/schema.ts` `junctionTable`, made by schema sync):
 * a relation or select holding a list (`maxSelect` > 1) of a base or auth collection whose
 * items one of the collection's own rules compares with an any-of operator (`editors.id ?= …`,
 * `tags:each ?= …`). NB: only those: every item written costs the junction's index a page, so
 * lists read by rules pay for it, other multi-valued fields do not.
 */
export function hasJunction(collection: Collection, field: Field): boolean {
  if (collection.type === 'view' || (field.type !== 'relation' && field.type !== 'select')) {
    return false
  }
  return isMultiField(field) && rulesAnyOf(collection).has(field.name)
}

/** A fresh recording plan, or null when `collection` at the main alias has no junctions. */
export function recordingPlan(collection: Collection, tableRows: boolean): JunctionPlan | null {
  if (!tableRows || !collection.fields.some((f) => hasJunction(collection, f))) return null
  return { mode: 'record', comparisons: new Map(), uses: new Map() }
}

/** Runs `fn` noting the join keys it asks `sink` for (also added to an outer recording). */
export function tracked<T>(sink: JoinSink, fn: () => T): { value: T; keys: Set<string> } {
  const outer = sink.used
  const keys = new Set<string>()
  sink.used = keys
  try {
    return { value: fn(), keys }
  } finally {
    sink.used = outer
    if (outer) for (const k of keys) outer.add(k)
  }
}

/**
 * Notes one comparison of the record pass: the keys of both operands, and the junction field
 * it could read when it is an any-of comparison with one multi-valued operand that joins
 * nothing but the field's `json_each` (and, for a relation path, its target) and another that
 * joins nothing at all.
 */
export function noteComparison(state: CompileState, node: ComparisonNode, sides: Side[]): void {
  const plan = state.junctions
  if (plan?.mode !== 'record') return
  const all = new Set(sides.flatMap((s) => [...s.keys]))
  for (const k of all) plan.uses.set(k, (plan.uses.get(k) ?? 0) + 1)
  // NB: a node compiled twice (a rule node reused) is never rewritten.
  if (plan.comparisons.has(node)) {
    plan.comparisons.set(node, null)
    return
  }
  plan.comparisons.set(node, candidate(state, node, sides))
}

/** One operand of a recorded comparison. */
export interface Side {
  multi: boolean
  keys: Set<string>
  constant?: { readonly value: string | number | boolean | null }
}

/** The operators (after `?`) whose comparison with NULL is never true (`NULL > x` is NULL). */
const NULL_NEVER_MATCHES = new Set(['=', '>', '>=', '<', '<=', '~', '!~'])

function candidate(
  state: CompileState,
  node: ComparisonNode,
  sides: Side[],
): { field: Field; keys: Set<string> } | null {
  if (!node.operator.startsWith('?') || !NULL_NEVER_MATCHES.has(node.operator.slice(1))) {
    return null
  }
  const multi = sides.filter((s) => s.multi)
  const other = sides.find((s) => !s.multi)
  if (multi.length !== 1 || !other || other.keys.size > 0) return null
  // NB: NULL equals '' and NULL (`x = ''` is `x = '' OR x IS NULL`): only other values.
  const value = other.constant?.value
  if (value === undefined || value === null || value === '') return null
  const { keys } = multi[0]!
  const { collection } = state.ctx
  const each = [...keys].map((k) => /^\.(\w+):each$/.exec(k)?.[1]).find((n) => n !== undefined)
  const field = collection.fields.find((f) => f.name === each)
  if (!field || !hasJunction(collection, field)) return null
  const allowed = new Set([`.${field.name}:each`, `.${field.name}`])
  for (const k of keys) if (!allowed.has(k)) return null
  if (field.type !== 'relation' && keys.has(`.${field.name}`)) return null
  // NB: a client's join of the related records carries their listRule as a condition of the
  // whole filter's scope (joins.ts): not a comparison's alone.
  if (keys.has(`.${field.name}`) && state.ctx.restricted && joinedRule(state, field)) return null
  return { field, keys }
}

/** Whether the records relation `field` points to have a listRule that is not empty. */
function joinedRule(state: CompileState, field: Field): boolean {
  const id = field.options.collectionId
  const target = typeof id === 'string' ? state.ctx.findCollection(id) : undefined
  return (target?.listRule ?? '').trim() !== ''
}

/** The apply plan of a finished record pass, or null when no comparison can be rewritten. */
export function applyPlan(plan: JunctionPlan): JunctionPlan | null {
  if (plan.mode !== 'record') return null
  const eligible = new Map<ComparisonNode, Field>()
  for (const [node, found] of plan.comparisons) {
    if (found && [...found.keys].every((k) => plan.uses.get(k) === 1)) {
      eligible.set(node, found.field)
    }
  }
  return eligible.size === 0 ? null : { mode: 'apply', eligible }
}
