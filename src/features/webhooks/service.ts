/**
 * Outgoing webhooks, the domain side: what a `_webhooks` row may hold, which rows a record change
 * concerns (cached, refreshed when `_webhooks` changes), the outbox rows written in the change's
 * own transaction, and the signatures of a delivery.
 */
import { createHmac } from 'node:crypto'
import type { App } from '../../core/app.js'
import type { Collection } from '../../core/collections/model.js'
import {
  badRequest,
  hasErrors,
  messages,
  validationError,
  type ValidationErrors,
} from '../../core/errors.js'
import { required } from '../../core/fields/generic-errors.js'
import type { RecordData } from '../../core/request-info.js'
import { recordFromRow, serializeRecord } from '../../core/records/serialize.js'
import { join, param, sql } from '../../store/sql.js'
import { formatDate, nowDate } from '../../tools/dates.js'
import { sortableId } from '../../tools/ids.js'
import { parseTargetUrl, SsrfError } from '../../tools/ssrf.js'
import { NEXT_AT } from './columns.js'

export const WEBHOOKS = '_webhooks'
export const OUTBOX = '_webhook_outbox'

/** A record change a webhook can ask for. */
export type WebhookEvent = 'create' | 'update' | 'delete'
const EVENTS: readonly WebhookEvent[] = ['create', 'update', 'delete']

/** The shortest and longest secret, in characters. */
export const SECRET_MIN = 16
export const SECRET_MAX = 256

const reasons = {
  events: 'a comma-separated subset of create, update, delete',
  collection: 'the name of an existing collection (not _webhooks or _webhook_outbox)',
  secret: 'whsec_ must be followed by standard base64 of at least 16 bytes',
}

/** A field's value as text ('' for anything but a string). */
const text = (v: unknown): string => (typeof v === 'string' ? v : '')

const reason = (text: string) =>
  validationError('validation_invalid_value:reason', { reason: text })

/** The events of a row's `events` text (empty: all three), or null when it is not valid. */
export function parseEvents(text: string): Set<WebhookEvent> | null {
  if (text.trim() === '') return new Set(EVENTS)
  const items = text.split(',').map((s) => s.trim())
  if (!items.every((e): e is WebhookEvent => (EVENTS as readonly string[]).includes(e))) return null
  const set = new Set(items)
  return set.size === items.length ? set : null
}

/**
 * Checks a `_webhooks` row about to be written (create or update): an `http:`/`https:` URL
 * without user info, a known collection, a valid event list, a secret of 16–256 characters
 * (`whsec_<base64>` decoding to 16+ bytes when it has that prefix). Throws 400 with field errors.
 */
export function checkWebhookRow(app: App, record: RecordData, isNew: boolean): void {
  const errors: ValidationErrors = {}
  try {
    parseTargetUrl(text(record.url))
  } catch (err) {
    if (!(err instanceof SsrfError)) throw err
    errors.url = reason(err.message)
  }
  const collection = text(record.collection)
  if (collection === WEBHOOKS || collection === OUTBOX || !app.collections.find(collection))
    errors.collection = reason(reasons.collection)
  if (parseEvents(text(record.events)) === null) errors.events = reason(reasons.events)
  const secret = text(record.secret)
  if (secret === '') errors.secret = required()
  else if (secret.length < SECRET_MIN || secret.length > SECRET_MAX)
    errors.secret = validationError('validation_length_out_of_range', {
      min: SECRET_MIN,
      max: SECRET_MAX,
    })
  else if (secret.startsWith('whsec_')) {
    const b64 = secret.slice('whsec_'.length)
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || Buffer.from(b64, 'base64').length < 16)
      errors.secret = reason(reasons.secret)
  }
  if (hasErrors(errors))
    throw badRequest(isNew ? messages.recordCreateFailed : messages.recordUpdateFailed, errors)
}

/** An enabled webhook as a record change sees it. */
interface Target {
  id: string
  events: Set<WebhookEvent>
}

/**
 * The enabled webhooks per collection name, read once and kept until `_webhooks` changes
 * (`invalidate()` after each commit that touched it).
 */
export class WebhookTargets {
  private cache: Map<string, Target[]> | null = null
  private generation = 0

  /** Forgets the cache (a `_webhooks` change committed). */
  invalidate(): void {
    this.generation++
    this.cache = null
  }

  /** The enabled webhooks of `collection` that ask for `event`. */
  async find(app: App, collection: string, event: WebhookEvent): Promise<Target[]> {
    let cache = this.cache
    if (!cache) {
      const generation = this.generation
      cache = await load(app)
      if (generation === this.generation) this.cache = cache
    }
    return (cache.get(collection) ?? []).filter((t) => t.events.has(event))
  }
}

async function load(app: App): Promise<Map<string, Target[]>> {
  const c = app.collections.find(WEBHOOKS)
  const out = new Map<string, Target[]>()
  if (!c) return out
  const rows = await app.db.all(sql`SELECT * FROM _webhooks`)
  for (const row of rows) {
    const r = recordFromRow(c, row)
    const events = parseEvents(text(r.events))
    if (r.enabled !== true || !events) continue
    const name = String(r.collection)
    out.set(name, [...(out.get(name) ?? []), { id: String(r.id), events }])
  }
  return out
}

/**
 * The body of a delivery: `{event, collection, record, timestamp}`, the record as a superuser
 * sees it minus hidden fields (passwords and `tokenKey` are never serialised).
 */
export function deliveryBody(
  collection: Collection,
  record: RecordData,
  event: WebhookEvent,
): string {
  return JSON.stringify({
    event,
    collection: collection.name,
    record: serializeRecord(collection, record, null, { showEmail: true }),
    timestamp: nowDate(),
  })
}

/**
 * Queues one delivery per webhook in the outbox, inside the caller's transaction (`app` is the
 * transactional app): the change and its deliveries commit or roll back together.
 */
export async function enqueue(app: App, webhookIds: string[], body: string): Promise<void> {
  const at = new Date()
  const now = formatDate(at)
  // Ids that sort by time: the outbox's id index is appended to, not split at random places.
  const rows = webhookIds.map(
    (w) =>
      sql`(${param(sortableId(at.getTime()))}, ${param(w)}, ${param(body)}, 0, ${param(now)}, ${param(now)}, ${param(now)})`,
  )
  await app.db.run(
    sql`INSERT INTO _webhook_outbox (id, webhook, body, attempts, ${NEXT_AT}, created, updated) VALUES ${join(rows)}`,
  )
}

/**
 * Makes a pending delivery due now (a `_webhook_outbox` row waiting for its next attempt after a
 * failure); one already due or being sent is left as it is. False when no such row exists.
 */
export async function retryDelivery(app: App, id: string): Promise<boolean> {
  const now = formatDate(new Date())
  return app.runInTransaction(async (tx) => {
    const row = await tx.db.get<{ id: string }>(
      sql`SELECT id FROM _webhook_outbox WHERE id = ${id}`,
    )
    if (!row) return false
    await tx.db.run(
      sql`UPDATE _webhook_outbox SET ${NEXT_AT} = ${now} WHERE id = ${id} AND ${NEXT_AT} > ${now}`,
    )
    return true
  })
}

/** The HMAC key of the Standard Webhooks signature: `whsec_<base64>` decoded, else the text. */
export function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8')
}

/**
 * The signature headers of one attempt: `X-Svc-Signature: sha256=<hex HMAC-SHA256 of the body,
 * keyed with the secret text>` and the Standard Webhooks trio (`webhook-id` = the delivery id,
 * `webhook-timestamp` in unix seconds, `webhook-signature: v1,<base64 HMAC of id.timestamp.body>`).
 */
export function signedHeaders(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  const svc = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')
  const std = createHmac('sha256', standardKey(secret))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64')
  return {
    'x-svc-signature': `sha256=${svc}`,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${std}`,
  }
}
