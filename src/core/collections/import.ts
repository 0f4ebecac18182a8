import { DbError, UniqueViolation } from '../../store/db.js'
import type { App } from '../app.js'
import {
  badRequest,
  hasErrors,
  messages,
  validationError,
  type ValidationErrors,
} from '../errors.js'
import { applyCollectionInput, reshapeErrors, type FieldMerge, type InputShape } from './input.js'
import { blankCollection } from './defaults.js'
import { ensureAuthIndexes, keepIndexes } from './index-text.js'
import { ruleKeys, type Collection, type CollectionType } from './model.js'
import { defaultSystemRules, type SystemCollectionSpec } from './system.js'
import { validateCollection } from './validate.js'
import { deriveViewFields } from './view.js'

/** One collection of an import (or a schema apply): what was sent, what it becomes, and what it was. */
export interface Item {
  label: string
  draft: Collection
  old: Collection | undefined
  shape: InputShape
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Builds the 400 of a failed write of a set of collections, naming the collection at fault. */
export type SetFailure = (name: string, id: string, detail: ValidationErrors | string) => Error

/** ozzo-validation's own rules: PocketBase's import detail shows their raw lower-case text. */
const ozzoCodes = new Set([
  'validation_required',
  'validation_nil',
  'validation_empty',
  'validation_in_invalid',
  'validation_not_in_invalid',
  'validation_match_invalid',
  'validation_length_out_of_range',
  'validation_length_too_long',
  'validation_length_invalid',
  'validation_min_greater_equal_than_required',
  'validation_max_less_equal_than_required',
  'validation_is_email',
  'validation_is_url',
])

/**
 * Field errors as PocketBase's import detail prints them: each error its message alone, in its
 * raw form (ozzo's rules lower-case and without the period; rules and view queries without it).
 */
function rawMessages(errors: ValidationErrors): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, e] of Object.entries(errors)) {
    if (typeof e.code !== 'string' || typeof e.message !== 'string') {
      out[key] = rawMessages(e as ValidationErrors)
      continue
    }
    const m = e.message
    if (ozzoCodes.has(e.code)) out[key] = (m[0]!.toLowerCase() + m.slice(1)).replace(/\.$/, '')
    else if (e.code === 'validation_invalid_rule' || e.code === 'validation_invalid_view_query')
      out[key] = m.replace(/\.$/, '')
    else out[key] = m
  }
  return out
}

/** The 400 of a failed import, naming the collection, as PocketBase words it. */
function importFailure(name: string, id: string, detail: ValidationErrors | string): Error {
  const text = typeof detail === 'string' ? detail : JSON.stringify(rawMessages(detail), null, 2)
  return badRequest(messages.importFailed, {
    collections: validationError('validation_collections_import_failure', {
      name,
      id,
      detail: text,
    }),
  })
}

/** The message of an error thrown while saving, for the import failure. */
function failureDetail(err: unknown): ValidationErrors | string {
  if (err instanceof Error && 'status' in err) {
    const data = (err as { data?: ValidationErrors }).data
    return data && Object.keys(data).length > 0 ? data : err.message
  }
  if (err instanceof DbError || err instanceof UniqueViolation)
    return messages.importRawError({ raw: err.message })
  throw err
}

/**
 * Why the database refused a collection's DDL, in validation terms when its own name, fields
 * or indexes explain it (`a` and `A`, a name taken); other collections of the import count as
 * existing already.
 */
function ddlFailure(app: App, plan: Item[], item: Item, err: unknown, fail: SetFailure): Error {
  const base = app.collections.lookup()
  const lookup = {
    ...base,
    findCollection: (n: string) =>
      base.findCollection(n) ??
      plan.find((i) => i.draft.id === n || i.draft.name.toLowerCase() === n.toLowerCase())?.draft,
  }
  const errors = validateCollection(item.draft, item.old, lookup, app.dbFor(item.draft).dialect)
  const own: ValidationErrors = {}
  for (const key of ['name', 'id', 'schema', 'indexes']) if (errors[key]) own[key] = errors[key]
  return fail(
    item.label,
    item.draft.id,
    hasErrors(own) ? reshapeErrors(own, item.shape) : failureDetail(err),
  )
}

/**
 * Turns the submitted list into drafts over the current collections, the fields of a stored
 * one merged per `merge`; throws on input errors.
 */
export function prepareItems(
  app: App,
  inputs: Record<string, unknown>[],
  merge: FieldMerge,
  fail: SetFailure = importFailure,
  /** PocketBase's import: replacing a stored collection's fields puts a left-out id last. */
  pkLastOnReplace = false,
): Item[] {
  const items: Item[] = []
  const matched = new Set<string>()
  for (const input of inputs) {
    const id = typeof input.id === 'string' ? input.id : ''
    const name = typeof input.name === 'string' ? input.name : ''
    const label = name || id || '?'
    const old =
      (id ? app.registry.find(id) : undefined) ?? (name ? app.registry.find(name) : undefined)
    const errors: ValidationErrors = {}
    if (old && matched.has(old.id)) {
      throw fail(label, old.id, messages.importListedTwice)
    }
    const type = (old?.type ?? input.type ?? 'base') as CollectionType
    if (!['base', 'auth', 'view'].includes(type)) {
      throw fail(label, id, {
        type: validationError('validation_in_invalid'),
      })
    }
    if (old && 'type' in input && input.type !== old.type) {
      errors.type = validationError('validation_collection_type_change')
    }
    const draft = old ? structuredClone(old) : blankCollection(type)
    const shape = applyCollectionInput(draft, input, errors, {
      merge: old ? merge : 'replace',
      fresh: !old,
      pkLast: pkLastOnReplace && Boolean(old) && merge === 'replace',
    })
    if (hasErrors(errors)) throw fail(label, old?.id ?? id, reshapeErrors(errors, shape))
    if (old?.system) keepDefaultSystemRules(draft, old, app.systemCollectionSpecs)
    if (old) matched.add(old.id)
    items.push({ label, draft, old, shape })
  }
  remapMatchedIds(inputs, items)
  return items
}

/** PocketBase's own default rules on a system collection are "no change" (see `system.ts`). */
function keepDefaultSystemRules(
  draft: Collection,
  old: Collection,
  specs: readonly SystemCollectionSpec[],
): void {
  const defaults = defaultSystemRules(old.name, specs)
  if (!defaults) return
  for (const key of ruleKeys) {
    if (draft[key] !== old[key] && draft[key] === defaults[key]) draft[key] = old[key]
  }
}

/**
 * A collection matched by name keeps its stored id; relations in the import that name the id
 * it was exported with are pointed at the stored one.
 */
function remapMatchedIds(inputs: Record<string, unknown>[], items: Item[]): void {
  const ids = new Map<string, string>()
  items.forEach((item, i) => {
    const sent = inputs[i]!.id
    if (item.old && typeof sent === 'string' && sent !== '' && sent !== item.old.id) {
      ids.set(sent, item.old.id)
    }
  })
  if (ids.size === 0) return
  for (const { draft } of items) {
    for (const f of draft.fields) {
      const target = f.options.collectionId
      if (f.type === 'relation' && typeof target === 'string' && ids.has(target)) {
        f.options = { ...f.options, collectionId: ids.get(target) }
      }
    }
  }
}

/**
 * Saves the views of the import and recreates every other view, in whatever order their
 * queries allow (a view may select from a view later in the list). Throws for the first view
 * whose query fails once nothing more can be created.
 */
async function saveViews(
  app: App,
  items: Item[],
  others: Collection[],
  fail: SetFailure,
): Promise<void> {
  let pendingItems = items
  let pendingOthers = others
  const problems = new Map<unknown, string>()
  for (let progress = true; progress;) {
    progress = false
    const nextItems: Item[] = []
    for (const item of pendingItems) {
      const problem = await deriveViewFields(app, item.draft)
      if (problem) {
        problems.set(item, problem)
        nextItems.push(item)
        continue
      }
      try {
        item.draft = await app.collections.save(item.draft, item.old, { deferViews: true })
      } catch (err) {
        throw fail(item.label, item.draft.id, failureDetail(err))
      }
      progress = true
    }
    const nextOthers: Collection[] = []
    for (const view of pendingOthers) {
      try {
        const db = app.dbFor(view)
        await app.schema.describeQuery(db, view.viewQuery ?? '')
        await app.schema.createView(db, view.name, view.viewQuery ?? '')
        progress = true
      } catch (err) {
        problems.set(view, err instanceof Error ? err.message : String(err))
        nextOthers.push(view)
      }
    }
    pendingItems = nextItems
    pendingOthers = nextOthers
  }
  // Report a view that fails on its own, not one that reads another failing view.
  const pendingNames = [
    ...pendingItems.map((i) => i.draft.name),
    ...pendingOthers.map((v) => v.name),
  ]
  const ownFailure = (subject: unknown): boolean =>
    !pendingNames.some((n) => (problems.get(subject) ?? '').includes(`no such table: ${n}`))
  const item = pendingItems.find(ownFailure) ?? pendingItems[0]
  if (item) {
    throw fail(item.label, item.draft.id, {
      viewQuery: validationError('validation_invalid_view_query', {
        problem: problems.get(item) ?? '',
      }),
    })
  }
  const view = pendingOthers.find(ownFailure) ?? pendingOthers[0]
  if (view) {
    throw fail(
      view.name,
      view.id,
      messages.importViewBroken({ name: view.name, problem: problems.get(view) ?? '' }),
    )
  }
}

/**
 * Imports collections (`PUT /api/collections/import`) in one transaction, as PocketBase does:
 * each item is matched to a stored collection by id, else by name, and merged over it (fields
 * by id, else by name and type, keeping the stored id); with `deleteMissing` the other
 * non-system collections and unlisted non-system fields go. Every collection is saved first
 * (tables, then views), then the whole set is validated, so relations and rules may point
 * forward, at views, or in cycles. Any failure rolls everything back.
 */
export async function importCollections(
  app: App,
  items: unknown,
  deleteMissing: boolean,
): Promise<void> {
  if (!Array.isArray(items) || items.length === 0) {
    throw badRequest(messages.importFailed, {
      collections: validationError('validation_required'),
    })
  }
  const inputs = items.map((i) => (isObject(i) ? i : {}))
  await app.runInTransaction(async (tx) => {
    const plan = prepareItems(
      tx,
      inputs,
      deleteMissing ? 'replace' : 'keep-missing',
      importFailure,
      true,
    )
    await saveCollectionSet(tx, plan, deleteMissing)
  })
}

/**
 * Saves prepared drafts (see {@link prepareItems}) in the caller's transaction: views dropped,
 * tables saved, views saved and recreated, then the whole set validated; with `deleteMissing`
 * the non-system collections not in `plan` are dropped first. Throws `fail`'s error.
 */
export async function saveCollectionSet(
  tx: App,
  plan: Item[],
  deleteMissing: boolean,
  fail: SetFailure = importFailure,
): Promise<void> {
  const listed = new Set(plan.flatMap((i) => (i.old ? [i.old.id] : [])))
  // Views go first and come back last: SQLite refuses to alter a column a view reads.
  for (const v of tx.collections.all()) {
    if (v.type === 'view') await tx.schema.dropView(tx.dbFor(v), v.name)
  }
  if (deleteMissing) {
    for (const c of tx.collections.all()) {
      if (!c.system && !listed.has(c.id)) await tx.collections.drop(c, { deferViews: true })
    }
  }
  const tables = plan.filter((i) => i.draft.type !== 'view')
  const views = plan.filter((i) => i.draft.type === 'view')
  for (const item of tables) {
    if (item.draft.id === '') item.draft.id = tx.collections.newId(item.draft)
    ensureAuthIndexes(item.draft)
    keepIndexes(item.draft)
    try {
      item.draft = await tx.collections.save(item.draft, item.old, { deferViews: true })
    } catch (err) {
      throw ddlFailure(tx, plan, item, err, fail)
    }
  }
  const otherViews = tx.collections
    .all()
    .filter((c) => c.type === 'view' && !views.some((v) => v.old?.id === c.id))
  await saveViews(tx, views, otherViews, fail)
  const lookup = tx.collections.lookup()
  let first: Error | undefined
  for (const item of [...tables, ...views]) {
    const errors = validateCollection(item.draft, item.old, lookup, tx.dbFor(item.draft).dialect)
    if (!hasErrors(errors)) continue
    const failure = fail(item.label, item.draft.id, reshapeErrors(errors, item.shape))
    // A broken field breaks the rules of other collections that use it: name its owner.
    if (errors.schema) throw failure
    first ??= failure
  }
  if (first) throw first
  // What the import did not list must still hold its fields (a relation may name a collection
  // that was dropped). Its rules are not checked again: as in PocketBase, a rule made stale
  // earlier (naming a collection deleted since) does not fail an unrelated import.
  const saved = new Set(plan.map((i) => i.draft.id))
  for (const c of tx.collections.all()) {
    if (saved.has(c.id)) continue
    const errors = validateCollection(c, c, lookup, tx.dbFor(c).dialect)
    if (errors.schema) throw fail(c.name, c.id, { schema: errors.schema })
  }
}
