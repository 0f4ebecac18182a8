import type { UploadedFile } from '../../core/records/files.js'
import {
  badRequest,
  hasErrors,
  messages,
  validationError,
  type ValidationErrors,
} from '../../core/errors.js'
import { required } from '../../core/fields/generic-errors.js'

/** One sub-request of a batch, checked and with its own uploads (reference §3.2). */
export interface BatchItem {
  method: string
  url: string
  /** Item headers as sent; the service merges them over the batch request's own. */
  headers: Record<string, string>
  body: Record<string, unknown>
  /** Files of parts named `requests.N.<key>` or `requests[N].<key>`, `field` being `<key>`. */
  files: UploadedFile[]
}

/** What a sub-request asks for: one of the record CRUD routes. */
export interface BatchAction {
  kind: 'create' | 'update' | 'delete' | 'upsert'
  /** The collection id or name of the path. */
  collection: string
  /** The record id of the path (`''` for create and upsert). */
  id: string
  /** First value of each query parameter of the item URL (`expand`, `fields`, …). */
  query: Record<string, string>
}

/** Methods an item may name (reference §3.2); only the record CRUD routes then match. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

/** The longest item URL accepted. */
const MAX_URL_LENGTH = 2000

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** 400 for a payload of the wrong shape (PocketBase's bind failure): `path` is not `expected`. */
function unreadable(path: string, expected: 'an object' | 'a string') {
  return badRequest(
    expected === 'an object'
      ? messages.batchNotObject({ path })
      : messages.batchNotString({ path }),
  )
}

const tooLong = (max: number) => validationError('validation_length_too_long', { min: 0, max })

/** Reads one item's `headers`: absent, or an object of strings. */
function readHeaders(value: unknown, index: number): Record<string, string> {
  if (value === undefined || value === null) return {}
  if (!isObject(value)) throw unreadable(`requests.${index}.headers`, 'an object')
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw unreadable(`requests.${index}.headers.${k}`, 'a string')
    out[k] = v
  }
  return out
}

/** Checks `method` and `url` of one item; returns its field errors. */
function checkItem(raw: Record<string, unknown>, index: number): ValidationErrors {
  const errors: ValidationErrors = {}
  const { method, url } = raw
  if (method !== undefined && method !== null && typeof method !== 'string')
    throw unreadable(`requests.${index}.method`, 'a string')
  if (url !== undefined && url !== null && typeof url !== 'string')
    throw unreadable(`requests.${index}.url`, 'a string')
  if (!method) errors.method = required()
  else if (!METHODS.includes(method)) errors.method = validationError('validation_in_invalid')
  if (!url) errors.url = required()
  else if (url.length > MAX_URL_LENGTH) errors.url = tooLong(MAX_URL_LENGTH)
  return errors
}

/** Matches `requests.N.key` and `requests[N].key` (reference §3.2). */
const FILE_KEY = /^requests(?:\.(\d+)\.|\[(\d+)\]\.)(.+)$/

/**
 * Reads and validates a batch payload `{requests: [{method, url, headers?, body?}]}`: an empty
 * list is `validation_required`, more than `maxRequests` items `validation_length_too_long`,
 * and item errors nest as `requests.<index>.<field>` (400 `Invalid batch request data.`).
 * Uploaded files go to the item their key names; files naming no item are ignored.
 */
export function parseBatchPayload(
  values: Record<string, unknown>,
  files: readonly UploadedFile[],
  maxRequests: number,
): BatchItem[] {
  const raw = values.requests ?? []
  if (!Array.isArray(raw)) throw badRequest(messages.batchRequestsNotArray)
  if (raw.length === 0) throw badRequest(messages.batchInvalid, { requests: required() })
  if (raw.length > maxRequests)
    throw badRequest(messages.batchInvalid, { requests: tooLong(maxRequests) })
  const errors: ValidationErrors = {}
  const items = raw.map((entry: unknown, index): BatchItem => {
    if (!isObject(entry)) throw unreadable(`requests.${index}`, 'an object')
    const itemErrors = checkItem(entry, index)
    if (hasErrors(itemErrors)) errors[String(index)] = itemErrors
    const body = entry.body ?? {}
    if (!isObject(body)) throw unreadable(`requests.${index}.body`, 'an object')
    return {
      method: typeof entry.method === 'string' ? entry.method : '',
      url: typeof entry.url === 'string' ? entry.url : '',
      headers: readHeaders(entry.headers, index),
      body,
      files: [],
    }
  })
  if (hasErrors(errors)) throw badRequest(messages.batchInvalid, { requests: errors })
  for (const file of files) {
    const m = FILE_KEY.exec(file.field)
    const item = m ? items[Number(m[1] ?? m[2])] : undefined
    if (m && item) item.files.push({ ...file, field: m[3]! })
  }
  return items
}

/** Actions on `…/records` and on `…/records/{id}`, by method. */
const COLLECTION_ACTIONS: Partial<Record<string, BatchAction['kind']>> = {
  POST: 'create',
  PUT: 'upsert',
}
const RECORD_ACTIONS: Partial<Record<string, BatchAction['kind']>> = {
  PATCH: 'update',
  DELETE: 'delete',
}

/** The record CRUD routes a batch item may call. */
const ROUTE = /^\/api\/collections\/([^/]+)\/records(?:\/([^/]+))?$/

/**
 * Resolves `<method> <url>` to a record action (reference §3.2): `POST …/records` create,
 * `PUT …/records` upsert, `PATCH …/records/{id}` update, `DELETE …/records/{id}` delete.
 * Anything else, `GET` included, is null.
 */
export function matchAction(method: string, url: string): BatchAction | null {
  const q = url.indexOf('?')
  const path = q < 0 ? url : url.slice(0, q)
  const m = ROUTE.exec(path)
  if (!m) return null
  let collection: string
  let id: string
  try {
    collection = decodeURIComponent(m[1]!)
    id = m[2] === undefined ? '' : decodeURIComponent(m[2])
  } catch {
    return null
  }
  const kind = (id === '' ? COLLECTION_ACTIONS : RECORD_ACTIONS)[method]
  if (!kind) return null
  const query: Record<string, string> = {}
  for (const [k, v] of new URLSearchParams(q < 0 ? '' : url.slice(q + 1))) {
    if (!(k in query)) query[k] = v
  }
  return { kind, collection, id, query }
}
