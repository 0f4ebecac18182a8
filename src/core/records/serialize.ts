import { getFieldType } from '../fields/registry.js'
import type { Collection } from '../collections/model.js'
import { isSuperuser, type RecordData, type RequestInfo } from '../request-info.js'

/** Builds a record from a stored row: each column through its field type. */
export function recordFromRow(collection: Collection, row: Record<string, unknown>): RecordData {
  const out: RecordData = {}
  for (const f of collection.fields) {
    const ft = getFieldType(f.type)
    out[f.name] = ft ? ft.fromDb(row[f.name], f) : row[f.name]
  }
  return out
}

/** True when the requester may see this auth record's email. */
function emailVisible(
  collection: Collection,
  record: RecordData,
  info: RequestInfo | null,
): boolean {
  if (record.emailVisibility === true || isSuperuser(info)) return true
  const auth = info?.auth
  return (
    auth !== null &&
    auth !== undefined &&
    auth.collection.id === collection.id &&
    auth.record.id === record.id
  )
}

/**
 * A record as the API returns it to one requester: fields never serialised (passwords) and
 * hidden fields are left out for non-superusers, and an auth record's `email` unless visible.
 * Keys come out alphabetically, as PocketBase's do.
 */
export function serializeRecord(
  collection: Collection,
  record: RecordData,
  info: RequestInfo | null,
  extra: { showEmail?: boolean } = {},
): Record<string, unknown> {
  const su = isSuperuser(info)
  const out: Record<string, unknown> = {
    collectionId: collection.id,
    collectionName: collection.name,
  }
  for (const f of collection.fields) {
    const ft = getFieldType(f.type)
    if (ft?.serialised === false) continue
    if (f.hidden && !su) continue
    if (
      collection.type === 'auth' &&
      f.name === 'email' &&
      !extra.showEmail &&
      !emailVisible(collection, record, info)
    ) {
      continue
    }
    out[f.name] = record[f.name]
  }
  if ('expand' in record) out.expand = record.expand
  const sorted: Record<string, unknown> = {}
  for (const k of Object.keys(out).sort()) sorted[k] = out[k]
  return sorted
}
