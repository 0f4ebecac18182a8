/**
 * Subscription strings (reference §4.3): `<collection>`, `<collection>/*`, `<collection>/<id>`
 * or any custom topic, optionally followed by `?options=<url-encoded JSON>` with `query`
 * (`filter`, `expand`, `fields`) and `headers` (for `@request.headers.*`). Also the validation
 * of the `POST /api/realtime` body. No HTTP here.
 */
import { badRequest, hasErrors, validationError, type ValidationErrors } from '../../core/errors.js'
import { headerKey } from '../../core/request-info.js'
import { FilterSyntaxError, parseFilter } from '../../tools/filter/index.js'
import { parseFields, PickerError } from '../../tools/picker.js'

/** The most subscriptions one client may hold. */
export const MAX_SUBSCRIPTIONS = 1000
/** The longest subscription string. */
export const MAX_SUBSCRIPTION_LENGTH = 2500
/** The longest client id accepted in a request. */
export const MAX_CLIENT_ID_LENGTH = 255

/** One parsed subscription. */
export interface Subscription {
  /** The string exactly as subscribed: the SSE event name of its messages. */
  readonly name: string
  /** The part before `?`: `posts`, `posts/*`, `posts/RECORD_ID`, or a custom topic. */
  readonly topic: string
  /** `options.query`, values as strings. */
  readonly query: Readonly<Record<string, string>>
  /** `options.headers`, names snake_cased as `@request.headers` sees them. */
  readonly headers: Readonly<Record<string, string>>
}

/** A validated `POST /api/realtime` body. */
export interface SubscribeForm {
  clientId: string
  subscriptions: Subscription[]
}

/** An option value as a string, as PocketBase's `cast.ToString` makes it (objects → ""). */
function optionString(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return ''
}

function stringMap(value: unknown, key: (k: string) => string): Record<string, string> {
  const out: Record<string, string> = {}
  if (value === undefined || value === null) return out
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError('"query" and "headers" must be objects')
  }
  for (const [k, v] of Object.entries(value)) out[key(k)] = optionString(v)
  return out
}

/**
 * Parses a subscription string. Throws a TypeError (with a reason for the client) when the
 * `options` are not a JSON object of `query`/`headers` objects, or their `filter` or `fields`
 * is malformed.
 */
export function parseSubscription(name: string): Subscription {
  const q = name.indexOf('?')
  const topic = q < 0 ? name : name.slice(0, q)
  if (q < 0) return { name, topic, query: {}, headers: {} }
  const raw = new URLSearchParams(name.slice(q + 1)).get('options')
  if (raw === null || raw === '') return { name, topic, query: {}, headers: {} }
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw new TypeError('options must be valid JSON')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new TypeError('options must be a JSON object')
  }
  const options = parsed as { query?: unknown; headers?: unknown }
  const query = stringMap(options.query, (k) => k)
  const headers = stringMap(options.headers, headerKey)
  try {
    if (query.filter) parseFilter(query.filter)
    if (query.fields) parseFields(query.fields)
  } catch (err) {
    if (err instanceof FilterSyntaxError) throw new TypeError(`invalid filter: ${err.message}`)
    if (err instanceof PickerError) throw new TypeError(`invalid fields: ${err.message}`)
    throw err
  }
  return { name, topic, query, headers }
}

/**
 * The record topic a subscription names: the collection (name or id) and the record id, or
 * `null` for the whole collection (`posts`, `posts/*`).
 */
export function recordTopic(topic: string): { collection: string; recordId: string | null } {
  const slash = topic.indexOf('/')
  if (slash < 0) return { collection: topic, recordId: null }
  const id = topic.slice(slash + 1)
  return { collection: topic.slice(0, slash), recordId: id === '*' ? null : id }
}

/**
 * The topics a change of record `recordId` in a collection is published under, each with the
 * rule that gates it: the record topics (viewRule) and the collection topics (listRule), by
 * collection name and by id. `<collection>` alone is the deprecated alias of `<collection>/*`.
 */
export function topicsOf(
  collection: { id: string; name: string },
  recordId: string,
): { topic: string; rule: 'listRule' | 'viewRule' }[] {
  const keys = [...new Set([collection.name, collection.id])]
  return [
    ...keys.map((k) => ({ topic: `${k}/${recordId}`, rule: 'viewRule' as const })),
    ...keys.map((k) => ({ topic: `${k}/*`, rule: 'listRule' as const })),
    ...keys.map((k) => ({ topic: k, rule: 'listRule' as const })),
  ]
}

const invalid = (reason?: string) =>
  reason
    ? validationError('validation_invalid_value:reason', { reason })
    : validationError('validation_invalid_value')

/**
 * Validates a `POST /api/realtime` body (reference §4.2): `clientId` 1–255 characters,
 * `subscriptions` at most 1000 strings of at most 2500 characters, no line breaks, options well
 * formed. Empty strings are skipped, duplicates kept once. Throws ApiError 400 with field data.
 */
export function parseSubscribeForm(body: unknown): SubscribeForm {
  const input = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
  const errors: ValidationErrors = {}
  const clientId = input.clientId
  if (clientId === undefined || clientId === null || clientId === '') {
    errors.clientId = validationError('validation_required')
  } else if (typeof clientId !== 'string') {
    errors.clientId = invalid()
  } else if (clientId.length > MAX_CLIENT_ID_LENGTH) {
    errors.clientId = validationError('validation_length_out_of_range', {
      min: 1,
      max: MAX_CLIENT_ID_LENGTH,
    })
  }
  const raw = input.subscriptions ?? []
  const subscriptions = new Map<string, Subscription>()
  if (!Array.isArray(raw)) {
    errors.subscriptions = invalid('expected an array of strings')
  } else if (raw.length > MAX_SUBSCRIPTIONS) {
    errors.subscriptions = validationError('validation_length_too_long', { max: MAX_SUBSCRIPTIONS })
  } else {
    const items: ValidationErrors = {}
    raw.forEach((s: unknown, i) => {
      if (typeof s !== 'string') items[i] = invalid('expected a string')
      else if (s.length > MAX_SUBSCRIPTION_LENGTH) {
        items[i] = validationError('validation_length_too_long', {
          max: MAX_SUBSCRIPTION_LENGTH,
          min: 0,
        })
      } else if (/[\r\n]/.test(s)) items[i] = invalid('line breaks are not allowed')
      else if (s !== '' && !subscriptions.has(s)) {
        try {
          subscriptions.set(s, parseSubscription(s))
        } catch (err) {
          if (!(err instanceof TypeError)) throw err
          items[i] = invalid(err.message)
        }
      }
    })
    if (hasErrors(items)) errors.subscriptions = items
  }
  if (hasErrors(errors)) throw badRequest(undefined, errors)
  return { clientId: clientId as string, subscriptions: [...subscriptions.values()] }
}
