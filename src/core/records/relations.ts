import { ident, sql } from '../../store/sql.js'
import { nowDate } from '../../tools/dates.js'
import type { App } from '../app.js'
import { badRequest, messages } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import type { RequestInfo } from '../request-info.js'
import type { Collection } from '../collections/model.js'
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
