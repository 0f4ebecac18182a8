/**
 * Rule checks against a record's values rather than its stored row: the record becomes a
 * one-row derived table under the main alias, so a rule compiled for the collection reads it as
 * it would read the table. Works for records that are gone (delete events) and for events
 * published by another instance.
 */
import type { Dialect } from '../../store/dialect.js'
import { ident, join, param, sql, type Sql } from '../../store/sql.js'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import { getFieldType } from '../fields/registry.js'
import { isSuperuser, type RecordData, type RequestInfo } from '../request-info.js'
import { compileFilter } from '../rules/index.js'
import { MAIN, ruleContext } from './query.js'

/**
 * How long one read of a record write (its rule checks, on the writer and so on the event loop
 * where the engine is synchronous) may run before it is stopped and the write fails with 503:
 * such a read cannot move to a reader thread, which would not see the transaction's own rows.
 */
export const WRITE_READ_LIMIT_MS = 100

/**
 * `SELECT <value> AS "<field>", …` over the record's values, each through its field type's
 * `toDb`. Values are cast as their column holds them (`Dialect.castColumn`), so that
 * comparisons coerce exactly as they do against the table.
 */
export function recordSource(collection: Collection, record: RecordData, dialect: Dialect): Sql {
  const columns = collection.fields.map((f) => {
    const ft = getFieldType(f.type)
    const value = param(ft ? ft.toDb(record[f.name], f) : (record[f.name] ?? null))
    const kind = ft?.column(f)
    const typed = kind === undefined ? value : dialect.castColumn(value, kind)
    return sql`${typed} AS ${ident(f.name)}`
  })
  return sql`SELECT ${join(columns)}`
}

/**
 * True when `record` passes the collection's `ruleKey` for the requester in `info`, and also
 * `extraFilter` (a client filter, compiled restricted for non-superusers) when one is given.
 * Superusers pass every rule; a `null` rule admits only superusers; `""` admits everyone.
 * Relation paths, back-relations and `@collection` in the rule read the other tables' current
 * rows. Throws ApiError 400 for a malformed `extraFilter`, 403 when a non-superuser's filter
 * names `@collection.` or `@request.`.
 */
export async function recordMatches(
  app: App,
  collection: Collection,
  record: RecordData,
  ruleKey: 'listRule' | 'viewRule',
  info: RequestInfo,
  extraFilter?: string,
): Promise<boolean> {
  const su = isSuperuser(info)
  const rule = collection[ruleKey]
  if (rule === null && !su) return false
  const conditions: Sql[] = []
  if (!su && rule !== null && rule.trim() !== '') {
    conditions.push(compileFilter(rule, ruleContext(app, collection, info, false)))
  }
  if (extraFilter !== undefined && extraFilter.trim() !== '') {
    conditions.push(compileFilter(extraFilter, ruleContext(app, collection, info, !su)))
  }
  if (conditions.length === 0) return true
  const db = app.dbFor(collection)
  const source = recordSource(collection, record, db.dialect)
  const where = join(
    conditions.map((c) => sql`(${c})`),
    ' AND ',
  )
  const row = await db.get(sql`SELECT 1 AS ok FROM (${source}) AS ${ident(MAIN)} WHERE ${where}`)
  return row !== undefined
}
