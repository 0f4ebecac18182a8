/** Records as one requester sees them: relations expanded, auth emails shown to managers. */
import { ident, join, param, sql } from '../../store/sql.js'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import { isSuperuser, type RecordData, type RequestInfo } from '../request-info.js'
import { expandRecords } from './expand.js'
import { MAIN, ruleCondition, selectFrom } from './query.js'
import { enrichRecords } from './enrich.js'
import { serializeRecord } from './serialize.js'

/**
 * Serialises records for the requester: relations expanded per `?expand=` (each level gated by
 * its viewRule), and auth records' email shown to those who pass the collection's manageRule.
 */
export async function presentRecords(
  app: App,
  collection: Collection,
  records: RecordData[],
  info: RequestInfo,
): Promise<Record<string, unknown>[]> {
  const expand = info.query.expand
  if (typeof expand === 'string' && expand.trim() !== '') {
    await expandRecords(app, collection, records, expand, info)
  }
  const managed =
    collection.type === 'auth'
      ? await app.records.managedIds(collection, records, info)
      : new Set<string>()
  const out = records.map((r) =>
    serializeRecord(collection, r, info, { showEmail: managed.has(String(r.id)) }),
  )
  await enrichRecords(app, collection, records, out, info)
  return out
}

/**
 * The ids among `records` that the requester manages through the collection's manageRule: none
 * without a rule or auth, and none for superusers (who need no rule).
 */
export async function managedIds(
  app: App,
  collection: Collection,
  records: RecordData[],
  info: RequestInfo,
): Promise<Set<string>> {
  const rule = collection.authOptions?.manageRule ?? null
  if (
    rule === null ||
    rule.trim() === '' ||
    records.length === 0 ||
    !info.auth ||
    isSuperuser(info)
  )
    return new Set()
  const condition = ruleCondition(app, collection, 'manageRule', info)
  const ids = join(records.map((r) => param(String(r.id))))
  const rows = await app
    .dbFor(collection)
    .all<{ id: string }>(
      selectFrom(
        collection,
        [sql`${ident(MAIN)}.id IN (${ids})`, condition],
        sql`${ident(MAIN)}.id AS id`,
      ),
    )
  return new Set(rows.map((r) => r.id))
}
