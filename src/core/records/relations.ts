import { ident, join, param, sql, type Sql } from '../../store/sql.js'
import { nowDate } from '../../tools/dates.js'
import type { App } from '../app.js'
import { badRequest, messages, type ValidationErrors } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import type { RecordData, RequestInfo } from '../request-info.js'
import type { Collection } from '../collections/model.js'
import { validateRecord } from './input.js'
import { recordFromRow } from './serialize.js'

/**
 * Before a record is deleted, every relation pointing at it is resolved: the id is removed from
 * referencing records; a `cascadeDelete` relation left empty deletes its record; a `required`
 * relation left empty blocks the delete. Runs inside the delete's transaction.
 */
export async function detachReferences(
  app: App,
  target: Collection,
  id: string,
  info: RequestInfo,
): Promise<void> {
  for (const other of app.registry.all()) {
    if (other.type === 'view') continue
    for (const field of other.fields) {
      if (field.type !== 'relation' || field.options.collectionId !== target.id) continue
      const ft = getFieldType(field.type)!
      const db = app.dbFor(other)
      const col = ident(field.name)
      let condition
      if (ft.isMulti(field)) {
        const each = db.dialect.jsonEach(sql`${ident('__ref')}.${col}`, '__item')
        condition = sql`EXISTS (SELECT 1 FROM ${each.from} WHERE ${each.value} = ${id})`
      } else {
        condition = sql`${ident('__ref')}.${col} = ${id}`
      }
      const rows = await db.all(
        sql`SELECT * FROM ${ident(other.name)} AS ${ident('__ref')} WHERE ${condition}`,
      )
      for (const row of rows) {
        const record = recordFromRow(other, row)
        if (other.id === target.id && record.id === id) continue
        const current = record[field.name]
        const next = Array.isArray(current) ? current.filter((v) => v !== id) : ''
        const empty = Array.isArray(next) ? next.length === 0 : true
        if (empty && field.options.cascadeDelete === true) {
          await app.records.deleteLoaded(other, record, info)
          continue
        }
        if (empty && field.required) throw badRequest(messages.recordDeleteBlocked)
        const updated = other.fields.find((f) => f.name === 'updated' && f.type === 'autodate')
        const stamp = updated ? sql`, ${ident(updated.name)} = ${nowDate()}` : sql``
        await db.run(
          sql`UPDATE ${ident(other.name)} SET ${col} = ${ft.toDb(next, field)}${stamp} WHERE id = ${String(record.id)}`,
        )
      }
    }
  }
}

/** Ids one create checks inside its INSERT at most, per target collection; more: looked up. */
const GUARDED_IDS = 100

/** The related ids a create's INSERT checks: per target collection, the ids that must exist. */
export interface RelationGuard {
  /** Per target collection, the distinct ids. */
  targets: Array<{ collection: Collection; ids: string[] }>
  /** The relation fields' values as validated (hooks may change the record afterwards). */
  values: RecordData
}

/**
 * Validates a new record as `validateRecord` does, with one difference when every field passes:
 * the existence of the related records (of the collections in the record's own database) is not
 * looked up but returned as a guard for the INSERT (`guardedInsert`), which then writes nothing
 * when one is missing, and `guardFailed` answers what the lookup would have. When any field
 * fails, every relation is looked up as before, and the errors are the same.
 */
export async function validateNew(
  tx: App,
  collection: Collection,
  record: RecordData,
  skip: Set<string>,
): Promise<{ errors: ValidationErrors; guard: RelationGuard | null }> {
  const lookup = tx.collections.lookup()
  const own = tx.dbFor(collection)
  const relations = new Set(
    collection.fields.filter((f) => f.type === 'relation' && !skip.has(f.name)).map((f) => f.name),
  )
  const full = () => validateRecord(collection, record, { isNew: true, lookup, skip })
  if (relations.size === 0) return { errors: await full(), guard: null }
  const targets = new Map<string, { collection: Collection; ids: Set<string> }>()
  const recording: typeof lookup = {
    ...lookup,
    missingIds: (target, ids) => {
      const known = targets.get(target.id)?.ids
      if (tx.dbFor(target) !== own || (known?.size ?? 0) + ids.length > GUARDED_IDS)
        return lookup.missingIds(target, ids)
      const entry = targets.get(target.id) ?? { collection: target, ids: new Set<string>() }
      for (const id of ids) entry.ids.add(id)
      targets.set(target.id, entry)
      return Promise.resolve([])
    },
  }
  const others = new Set([...skip, ...relations])
  const onlyRelations = new Set(
    collection.fields.map((f) => f.name).filter((n) => !relations.has(n)),
  )
  const [a, b] = await Promise.all([
    validateRecord(collection, record, { isNew: true, lookup, skip: others }),
    validateRecord(collection, record, { isNew: true, lookup: recording, skip: onlyRelations }),
  ])
  if (Object.keys(a).length > 0 || Object.keys(b).length > 0)
    return { errors: await full(), guard: null }
  if (targets.size === 0) return { errors: {}, guard: null }
  const values: RecordData = {}
  for (const name of relations) values[name] = record[name]
  return {
    errors: {},
    guard: {
      targets: [...targets.values()].map((t) => ({ collection: t.collection, ids: [...t.ids] })),
      values,
    },
  }
}

/**
 * `INSERT INTO table (columns) SELECT values WHERE` every guarded id exists: one statement
 * checks the relations and writes the row (no row written when one is missing).
 */
export function guardedInsert(
  table: string,
  columns: readonly Sql[],
  values: readonly Sql[],
  guard: RelationGuard,
): Sql {
  const conditions = guard.targets.map(
    (t) =>
      sql`(SELECT COUNT(*) FROM ${ident(t.collection.name)} WHERE id IN (${join(t.ids.map((id) => param(id)))})) = ${t.ids.length}`,
  )
  return sql`INSERT INTO ${ident(table)} (${join(columns)}) SELECT ${join(values)} WHERE ${join(conditions, ' AND ')}`
}

/**
 * The answer of a create whose guarded INSERT wrote nothing: the relation errors the lookup
 * finds for the values as validated, as `validateRecord` gives them.
 */
export async function guardFailed(
  tx: App,
  collection: Collection,
  guard: RelationGuard,
): Promise<ValidationErrors> {
  const names = new Set(Object.keys(guard.values))
  const skip = new Set(collection.fields.map((f) => f.name).filter((n) => !names.has(n)))
  return validateRecord(collection, guard.values, {
    isNew: true,
    lookup: tx.collections.lookup(),
    skip,
  })
}
