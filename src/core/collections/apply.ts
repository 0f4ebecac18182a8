/**
 * Schema apply (SPEC §4.8): a list of collection inputs compared with the stored collections,
 * a plan per item, and the writes in one transaction through the collection service (the same
 * save as an import: model hooks, validation of the whole set, events after commit). Behind
 * `POST /api/schema/apply`, `svcbase schema diff|apply` and `serve --automigrate`.
 *
 * What it does, precisely (docs/schema.md):
 * - an item is matched to a stored collection by `id`, else by name; none matched → `create`;
 * - fields are matched by `id`, else by name and type; a field with a known id and a new name
 *   is a rename (a change); a new field may come without an id;
 * - a field is "changed" when any of its name, type, required, unique, hidden, presentable,
 *   system or options differs; the collection's name, rules, indexes, view query, auth
 *   options and the order of its fields are compared too, and make an `update` with no field
 *   change;
 * - added and changed fields are written; a stored field the item omits is listed in
 *   `fieldsRemoved` and dropped only with `force`, else kept (`pendingRemoval: true`); system
 *   fields are never removed; an item without `schema`/`fields` leaves the fields alone;
 * - collections absent from the payload are left alone and not listed; none is ever dropped;
 * - `action` is `update` whenever the stored collection differs from the item, pending
 *   removals included, `unchanged` when it does not; only collections with something to write
 *   are saved (so an unchanged one fires no hook and keeps its `updated`);
 * - a view's fields follow its query: compared after the query is derived, never pending.
 */
import type { App } from '../app.js'
import { badRequest, hasErrors, messages, validationError } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import { fieldToSchema, publicAuthOptions } from './codec.js'
import { prepareItems, saveCollectionSet, type Item, type SetFailure } from './import.js'
import { normalizeIndexes } from './indexes.js'
import { reshapeErrors } from './input.js'
import { isObject, sameValue } from './input-views.js'
import type { CollectionLookup } from './lookup.js'
import { ruleKeys, type Collection, type Field } from './model.js'
import { validateCollection } from './validate.js'
import { deriveViewFields } from './view.js'

/** The most collections one apply takes. */
export const MAX_APPLY_ITEMS = 1000

/** What an apply does to one collection of the payload. */
export type PlanAction = 'create' | 'update' | 'unchanged'

/** One entry of the plan, as the API answers it (SPEC §2.8). */
export interface PlanEntry {
  name: string
  action: PlanAction
  fieldsAdded: string[]
  fieldsRemoved: string[]
  fieldsChanged: string[]
  pendingRemoval: boolean
}

/**
 * A plan entry with what changed besides fields (`name`, a rule key, `indexes`, `viewQuery`,
 * `fieldOrder`, `authOptions.<key>`) and whether the collection is saved, for the CLI.
 */
export interface PlanDetail extends PlanEntry {
  attributes: string[]
  saved: boolean
}

/** Options of {@link applySchema}. */
export interface SchemaApplyOptions {
  /** Compute and validate the plan, write nothing. */
  dryRun?: boolean
  /** Drop the stored fields the payload omits. */
  force?: boolean
}

/** The answer of an apply: `applied` is false for a dry run. */
export interface ApplyResult {
  applied: boolean
  force: boolean
  collections: PlanDetail[]
}

/** A plan entry in the API's shape (SPEC §2.8), without the CLI's details. */
export function planEntry(d: PlanDetail): PlanEntry {
  return {
    name: d.name,
    action: d.action,
    fieldsAdded: d.fieldsAdded,
    fieldsRemoved: d.fieldsRemoved,
    fieldsChanged: d.fieldsChanged,
    pendingRemoval: d.pendingRemoval,
  }
}

/**
 * The collection inputs of a payload in one of SPEC's three shapes: a bare array,
 * `{collections: [...]}` or `{items: [...]}` (`GET /api/collections` output as it is). Anything
 * else is a 400 saying what is expected.
 */
export function schemaPayloadItems(body: unknown): Record<string, unknown>[] {
  let list: unknown
  if (Array.isArray(body)) list = body
  else if (isObject(body)) {
    const keys = (['collections', 'items'] as const).filter((k) => body[k] !== undefined)
    if (keys.length === 2) throw badRequest(messages.schemaPayloadAmbiguous)
    const key = keys[0]
    if (!key) throw badRequest(messages.schemaPayloadInvalid)
    list = body[key]
    if (!Array.isArray(list)) throw badRequest(messages.schemaPayloadNotArray({ key }))
  } else throw badRequest(messages.schemaPayloadInvalid)
  const items = list as unknown[]
  if (items.length === 0) throw badRequest(messages.schemaPayloadEmpty)
  if (items.length > MAX_APPLY_ITEMS)
    throw badRequest(messages.schemaPayloadTooMany({ max: MAX_APPLY_ITEMS }))
  const bad = items.findIndex((i) => !isObject(i))
  if (bad >= 0) throw badRequest(messages.schemaItemNotObject({ index: bad }))
  return items as Record<string, unknown>[]
}

/** The 400 of a failed apply: the collection's name, and its field errors under that name. */
const applyFailure: SetFailure = (name, _id, detail) =>
  typeof detail === 'string'
    ? badRequest(messages.schemaApplyFailedDetail({ name, detail }))
    : badRequest(messages.schemaApplyFailed({ name }), { [name]: detail })

/**
 * A field as compared: its SPEC shape, options over the type's defaults (a stored field that
 * lacks an option at its default value is the same as one that spells it out).
 */
function comparable(f: Field): Record<string, unknown> {
  const schema = fieldToSchema(f)
  return { ...schema, options: { ...getFieldType(f.type)?.defaultOptions(), ...f.options } }
}

/** True when two fields are the same in every compared attribute (their ids match already). */
function sameField(a: Field, b: Field): boolean {
  return sameValue(comparable(a), comparable(b))
}

/** A collection's indexes in their stored (normalised) form. */
function indexesOf(c: Collection): string[] {
  const copy = { ...c, indexes: [...c.indexes] }
  if (c.type !== 'view') normalizeIndexes(copy)
  return copy.indexes
}

/** The view query as it would be stored (see `deriveViewFields`), for comparison. */
const viewQueryText = (q: string | undefined): string => (q ?? '').trim().replace(/;\s*$/, '')

/** What differs between a stored collection and its draft besides the fields. */
function attributeChanges(old: Collection, draft: Collection): string[] {
  const out: string[] = []
  if (old.name !== draft.name) out.push('name')
  for (const key of ruleKeys) if (old[key] !== draft[key]) out.push(key)
  if (!sameValue(indexesOf(old), draft.indexes)) out.push('indexes')
  if (old.type === 'view' && (old.viewQuery ?? '') !== viewQueryText(draft.viewQuery))
    out.push('viewQuery')
  if (draft.type !== 'view') {
    const kept = new Set(draft.fields.map((f) => f.id))
    const before = old.fields.filter((f) => kept.has(f.id)).map((f) => f.id)
    const after = draft.fields.filter((f) => before.includes(f.id)).map((f) => f.id)
    if (!sameValue(before, after)) out.push('fieldOrder')
  }
  if (old.authOptions && draft.authOptions) {
    const a = old.authOptions as unknown as Record<string, unknown>
    const b = draft.authOptions as unknown as Record<string, unknown>
    for (const key of Object.keys(b)) if (!sameValue(a[key], b[key])) out.push(`authOptions.${key}`)
  }
  return out
}

/** Field names of `next` not in `prev` (by id), changed, and of `prev` not in `next`. */
function fieldChanges(
  prev: Field[],
  next: Field[],
): { added: string[]; changed: string[]; removed: Field[] } {
  const before = new Map(prev.map((f) => [f.id, f]))
  const ids = new Set(next.map((f) => f.id))
  return {
    added: next.filter((f) => !before.has(f.id)).map((f) => f.name),
    changed: next
      .filter((f) => {
        const o = before.get(f.id)
        return o !== undefined && !sameField(o, f)
      })
      .map((f) => f.name),
    removed: prev.filter((f) => !ids.has(f.id) && !f.system),
  }
}

/** One item of the payload with its plan (`detail.saved`: whether it is written). */
interface Step {
  item: Item
  detail: PlanDetail
}

/** Puts a stored field back into a draft, after the field it follows in the stored order. */
function keepField(draft: Collection, old: Collection, field: Field): void {
  const i = old.fields.indexOf(field)
  for (let k = i - 1; k >= 0; k--) {
    const j = draft.fields.findIndex((f) => f.id === old.fields[k]!.id)
    if (j >= 0) {
      draft.fields.splice(j + 1, 0, field)
      return
    }
  }
  draft.fields.unshift(field)
}

/**
 * The plan of one prepared item. Without `force` the omitted fields go back into the draft at
 * their stored place, so saving it keeps them.
 */
function planItem(item: Item, force: boolean): Step {
  const { draft, old } = item
  if (!old) {
    const fieldsAdded = draft.fields.filter((f) => !f.system).map((f) => f.name)
    return {
      item,
      detail: {
        name: draft.name,
        action: 'create',
        fieldsAdded,
        fieldsRemoved: [],
        fieldsChanged: [],
        pendingRemoval: false,
        attributes: [],
        saved: true,
      },
    }
  }
  if (draft.type !== 'view') normalizeIndexes(draft)
  const attributes = attributeChanges(old, draft)
  // A view's fields are derived from its query: compared once it is derived (see below).
  const { added, changed, removed } =
    draft.type === 'view'
      ? { added: [], changed: [], removed: [] }
      : fieldChanges(old.fields, draft.fields)
  const pendingRemoval = removed.length > 0 && !force
  if (pendingRemoval) for (const f of removed) keepField(draft, old, f)
  const differs = added.length + changed.length + removed.length + attributes.length > 0
  return {
    item,
    detail: {
      name: draft.name,
      action: differs ? 'update' : 'unchanged',
      fieldsAdded: added,
      fieldsRemoved: removed.map((f) => f.name),
      fieldsChanged: changed,
      pendingRemoval,
      attributes,
      saved: added.length + changed.length + attributes.length > 0 || (force && removed.length > 0),
    },
  }
}

/** Fills a view's field changes from its derived fields, against the stored view (if any). */
function planViewFields(step: Step, fields: Field[]): void {
  const old = step.item.old
  const d = step.detail
  if (!old) {
    d.fieldsAdded = fields.filter((f) => !f.system).map((f) => f.name)
    return
  }
  const { added, changed, removed } = fieldChanges(old.fields, fields)
  d.fieldsAdded = added
  d.fieldsChanged = changed
  d.fieldsRemoved = removed.map((f) => f.name)
  if (added.length + changed.length + removed.length > 0) d.action = 'update'
}

/**
 * The lookup a dry run validates with: the stored collections with the payload's drafts in
 * place of the ones they change.
 */
function draftLookup(app: App, steps: Step[]): CollectionLookup {
  const base = app.collections.lookup()
  const drafts = steps.map((s) => s.item.draft)
  const replaced = new Set(steps.flatMap((s) => (s.item.old ? [s.item.old.id] : [])))
  let all: Collection[] | undefined
  return {
    ...base,
    findCollection: (n) => {
      const draft = drafts.find(
        (d) => (d.id !== '' && d.id === n) || d.name.toLowerCase() === n.toLowerCase(),
      )
      if (draft) return draft
      const stored = base.findCollection(n)
      return stored && !replaced.has(stored.id) ? stored : undefined
    },
    all: () => (all ??= [...base.all().filter((c) => !replaced.has(c.id)), ...drafts]),
  }
}

/**
 * Validates what a dry run would write, as far as it can without writing: each draft against
 * the stored collections and the other drafts. A changed view is derived from the stored
 * tables; when the payload also changes tables, its query is left to the real apply.
 */
async function validateDryRun(app: App, steps: Step[]): Promise<void> {
  const lookup = draftLookup(app, steps)
  const tablesChange = steps.some((s) => s.detail.saved && s.item.draft.type !== 'view')
  for (const step of steps) {
    const { draft, old, label, shape } = step.item
    if (draft.type === 'view' && step.detail.saved) {
      const probe = structuredClone(draft)
      const problem = await deriveViewFields(app, probe)
      if (problem && !tablesChange)
        throw applyFailure(label, draft.id, {
          viewQuery: validationError('validation_invalid_view_query', { problem }),
        })
      if (!problem) {
        draft.fields = probe.fields
        planViewFields(step, probe.fields)
      }
    }
    if (!step.detail.saved) continue
    const errors = validateCollection(draft, old, lookup, app.dbFor(draft).dialect)
    if (hasErrors(errors)) throw applyFailure(label, draft.id, reshapeErrors(errors, shape))
  }
}

/**
 * Applies (or, with `dryRun`, plans) a list of collection inputs; see the top of this file.
 * One transaction; any invalid item is a 400 naming it and nothing is written.
 */
export async function applySchema(
  app: App,
  inputs: Record<string, unknown>[],
  opts: SchemaApplyOptions = {},
): Promise<ApplyResult> {
  const force = opts.force === true
  const plan = (a: App): Step[] =>
    prepareItems(a, inputs, 'replace', applyFailure).map((item) => planItem(item, force))
  if (opts.dryRun) {
    const steps = plan(app)
    await validateDryRun(app, steps)
    return { applied: false, force, collections: steps.map((s) => s.detail) }
  }
  const steps = await app.runInTransaction(async (tx) => {
    const steps = plan(tx)
    const writes = steps.filter((s) => s.detail.saved)
    if (writes.length > 0) {
      await saveCollectionSet(
        tx,
        writes.map((s) => s.item),
        false,
        applyFailure,
      )
    }
    for (const s of writes) {
      if (s.item.draft.type === 'view') planViewFields(s, s.item.draft.fields)
    }
    return steps
  })
  return { applied: true, force, collections: steps.map((s) => s.detail) }
}

/** Deep copy of a JSON value with object keys sorted, so an export diffs line by line. */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys)
  if (!isObject(v)) return v
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys(v[k])
  return out
}

/**
 * One collection as an apply payload item: SPEC's shape only (`schema`, `authOptions` without
 * secrets), no timestamps, options over their type's defaults with sorted keys, so the export
 * of an unchanged schema is byte for byte the same however its collections were written.
 */
export function exportItem(c: Collection): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: c.id,
    name: c.name,
    type: c.type,
    system: c.system,
  }
  for (const key of ruleKeys) out[key] = c[key]
  if (c.type === 'view') out.viewQuery = c.viewQuery ?? ''
  out.indexes = [...c.indexes]
  if (c.authOptions) out.authOptions = sortedKeys(publicAuthOptions(c.authOptions))
  out.schema = c.fields.map((f) => {
    const s = comparable(f)
    return { ...s, options: sortedKeys(s.options) }
  })
  return out
}

/** Every collection as an apply payload, `{collections: [...]}` sorted by name. */
export function exportSchema(app: App): { collections: Record<string, unknown>[] } {
  const all = [...app.collections.all()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )
  return { collections: all.map(exportItem) }
}
