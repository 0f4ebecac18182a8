/**
 * The junction rewrite: an any-of comparison (`?=`, `?~`, …) over a multi-valued relation or
 * select of the main row (`tags:each ?= 'a'`, `editors.id ?= @request.auth.id`,
 * `editors.name ?~ 'x'`) reads the field's junction table instead of parsing the row's JSON:
 *
 *     <alias>.id IN (SELECT jt.record FROM <junction> AS jt [LEFT JOIN <target> AS r ON r.id =
 *       jt.value AND <listRule>] WHERE <the comparison over jt.value / r.col>)
 *
 * The junction's rows are exactly those of `(SELECT 1) LEFT JOIN json_each(<field>) ON 1 = 1`,
 * the join the comparison ranges over otherwise (one row with a NULL value for a list with no
 * items), so the answer is the same. It is the same only when that join is the comparison's
 * alone: the filter's joins are shared by key (`tags:each ?= 'a' && tags:each ?= 'b'` needs one
 * item equal to both), so a first pass (`record`) notes the join keys of every comparison and a
 * second one (`apply`) rewrites those whose keys no other comparison uses and whose other
 * operand joins nothing. The filter language has no NOT, so an `EXISTS` over the shared joins
 * distributes over its ANDs and ORs and each comparison can be decided on its own.
 */
import type { ComparisonNode } from '../../tools/filter/index.js'
import type { Collection, Field } from '../collections/model.js'
import { hasJunction, type CompileState, type JoinSink, type JunctionPlan } from './context.js'

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
export function noteComparison(
  state: CompileState,
  node: ComparisonNode,
  sides: { multi: boolean; keys: Set<string> }[],
): void {
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

function candidate(
  state: CompileState,
  node: ComparisonNode,
  sides: { multi: boolean; keys: Set<string> }[],
): { field: Field; keys: Set<string> } | null {
  if (!node.operator.startsWith('?')) return null
  const multi = sides.filter((s) => s.multi)
  const other = sides.find((s) => !s.multi)
  if (multi.length !== 1 || !other || other.keys.size > 0) return null
  const { keys } = multi[0]!
  const { collection } = state.ctx
  const each = [...keys].map((k) => /^\.(\w+):each$/.exec(k)?.[1]).find((n) => n !== undefined)
  const field = collection.fields.find((f) => f.name === each)
  if (!field || !hasJunction(collection, field)) return null
  const allowed = new Set([`.${field.name}:each`, `.${field.name}`])
  for (const k of keys) if (!allowed.has(k)) return null
  if (field.type !== 'relation' && keys.has(`.${field.name}`)) return null
  return { field, keys }
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
