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
 * A record as the API returns it to one requester: an auth record's `password` and `tokenKey` are
 * left out for everyone, hidden fields for non-superusers, and an auth record's `email` unless
 * visible; other password fields show as `""` (never their hash), as in PocketBase.
 * Keys come out alphabetically, as PocketBase's do.
 */
export function serializeRecord(
  collection: Collection,
  record: RecordData,
  info: RequestInfo | null,
  extra: { showEmail?: boolean } = {},
): Record<string, unknown> {
  const su = isSuperuser(info)
  const out: Record<string, unknown> = {}
  for (const key of outputKeys(collection)) {
    if (key === COLLECTION_ID) out.collectionId = collection.id
    else if (key === COLLECTION_NAME) out.collectionName = collection.name
    else if (key === EXPAND) {
      if ('expand' in record) out.expand = record.expand
    } else {
      if (key.hidden && !su) continue
      if (key.email && !extra.showEmail && !emailVisible(collection, record, info)) continue
      out[key.name] = key.blank ? '' : record[key.name]
    }
  }
  return out
}

const COLLECTION_ID = Symbol('collectionId')
const COLLECTION_NAME = Symbol('collectionName')
const EXPAND = Symbol('expand')

/** A serialisable field in output order. */
interface OutputField {
  name: string
  hidden: boolean
  /** An auth collection's `email`, shown only when visible to the requester. */
  email: boolean
  /** A field whose value is never shown (a password): `""` in its place. */
  blank: boolean
}

type OutputKey = OutputField | typeof COLLECTION_ID | typeof COLLECTION_NAME | typeof EXPAND

/** Output keys per collection version, alphabetical, computed once (collections are immutable). */
const keysByCollection = new WeakMap<Collection, OutputKey[]>()

function outputKeys(c: Collection): OutputKey[] {
  let keys = keysByCollection.get(c)
  if (keys) return keys
  const named: [string, OutputKey][] = [
    ['collectionId', COLLECTION_ID],
    ['collectionName', COLLECTION_NAME],
    ['expand', EXPAND],
  ]
  for (const f of c.fields) {
    // NB: an auth record's tokenKey signs its tokens: never serialised, not even for superusers;
    // nor is its password field, which PocketBase leaves out too (other passwords show as "").
    if (c.type === 'auth' && (f.name === 'tokenKey' || f.name === 'password')) continue
    // NB: write-only secrets of system collections: never serialised either (lists, views,
    // expands and realtime all pass here).
    if (c.writeOnly?.includes(f.name)) continue
    named.push([
      f.name,
      {
        name: f.name,
        hidden: f.hidden,
        email: c.type === 'auth' && f.name === 'email',
        blank: getFieldType(f.type)?.serialised === false,
      },
    ])
  }
  keys = named.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, k]) => k)
  keysByCollection.set(c, keys)
  return keys
}
