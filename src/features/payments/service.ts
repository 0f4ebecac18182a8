/**
 * Incoming payment events (Stripe's webhook scheme, reference integrations §7): the signature
 * check over the exact raw body, and the store-once-then-hooks step. No HTTP here.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { App } from '../../core/app.js'
import { systemRequest } from '../../core/auth/superusers.js'
import { badRequest, forbidden, messages } from '../../core/errors.js'
import { ident, sql } from '../../store/sql.js'
import { paymentsMessages } from './messages.js'

/** The system collection that keeps every accepted event once. */
export const PAYMENT_EVENTS = '_payment_events'

/** How far (seconds) a signature's `t` may be from the server's clock, in either direction. */
export const TOLERANCE_SECONDS = 300

/** The largest body accepted (bytes): the `payload` json field's own limit. */
export const MAX_BODY_BYTES = 1024 * 1024

/** The longest `Stripe-Signature` header read (Stripe's are about 250 characters). */
export const MAX_HEADER_LENGTH = 4096

/** Stripe's current signature scheme; `v0` and any other scheme are ignored. */
const SCHEME = 'v1'

/** The parts of a `Stripe-Signature` header: `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`. */
interface SignatureHeader {
  /** The timestamp as sent (it is signed as text). */
  t: string
  signatures: string[]
}

/**
 * Reads `t=…,v1=…`; 400 with Stripe's wording when it is missing, garbled (or longer than
 * {@link MAX_HEADER_LENGTH}) or has no v1.
 */
export function parseSignatureHeader(header: string | undefined): SignatureHeader {
  if (header === undefined || header.trim() === '') {
    throw badRequest(paymentsMessages.paymentsSignatureMissing)
  }
  if (header.length > MAX_HEADER_LENGTH)
    throw badRequest(paymentsMessages.paymentsSignatureMalformed)
  let t: string | undefined
  const signatures: string[] = []
  for (const item of header.split(',')) {
    const eq = item.indexOf('=')
    if (eq < 0) continue
    const key = item.slice(0, eq).trim()
    const value = item.slice(eq + 1).trim()
    if (key === 't') t = value
    else if (key === SCHEME) signatures.push(value)
  }
  if (t === undefined || !/^\d{1,12}$/.test(t)) {
    throw badRequest(paymentsMessages.paymentsSignatureMalformed)
  }
  if (signatures.length === 0) throw badRequest(paymentsMessages.paymentsSignatureNoScheme)
  return { t, signatures }
}

/** Equal in constant time for equal lengths; different lengths are simply not equal. */
function sameHex(expected: Buffer, given: string): boolean {
  const b = Buffer.from(given, 'utf8')
  return b.length === expected.length && timingSafeEqual(b, expected)
}

/**
 * Checks a `Stripe-Signature` header against the raw body: HMAC-SHA256 with the secret (as is,
 * `whsec_…` included) of `${t}.${rawBody}`, any `v1` matching, compared in constant time, and
 * `t` within {@link TOLERANCE_SECONDS} of `nowSeconds` either way. Throws 400 otherwise.
 */
export function verifySignature(
  rawBody: Buffer,
  header: string | undefined,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): void {
  if (secret === '') throw badRequest(paymentsMessages.paymentsNotConfigured)
  const { t, signatures } = parseSignatureHeader(header)
  const expected = Buffer.from(
    createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex'),
    'utf8',
  )
  // Every v1 is compared (no early exit), so the time taken does not tell which one matched.
  let matched = false
  for (const s of signatures) matched = sameHex(expected, s.toLowerCase()) || matched
  if (!matched) throw badRequest(paymentsMessages.paymentsSignatureMismatch)
  if (Math.abs(nowSeconds - Number(t)) > TOLERANCE_SECONDS) {
    throw badRequest(
      paymentsMessages.paymentsTimestampOutsideTolerance({ seconds: TOLERANCE_SECONDS }),
    )
  }
}

/** A verified event: its id and type, and the whole parsed object. */
export interface PaymentEvent {
  eventId: string
  type: string
  payload: Record<string, unknown>
}

/** Parses the verified body: a JSON object with string `id` and `type` (400 otherwise). */
export function parseEvent(rawBody: Buffer): PaymentEvent {
  let parsed: unknown
  try {
    parsed = JSON.parse(rawBody.toString('utf8'))
  } catch (err) {
    throw badRequest(messages.bodyInvalidJson({ reason: (err as Error).message }))
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest(messages.bodyNotObject)
  }
  const event = parsed as Record<string, unknown>
  for (const field of ['id', 'type'] as const) {
    const v = event[field]
    if (typeof v !== 'string' || v === '' || v.length > 255) {
      throw badRequest(paymentsMessages.paymentsEventInvalid({ field }))
    }
  }
  return { eventId: event.id as string, type: event.type as string, payload: event }
}

/**
 * Stores the event once and runs `onPaymentEvent` in the same transaction. Returns false for a
 * replay (the event id is stored already): nothing is written and no handler runs. A handler
 * that throws rolls the row back and the error goes to the caller.
 */
export async function receiveEvent(app: App, event: PaymentEvent): Promise<boolean> {
  return app.runInTransaction(async (tx) => {
    const c = tx.collections.get(PAYMENT_EVENTS)
    const seen = await tx
      .dbFor(c)
      .get(sql`SELECT 1 AS one FROM ${ident(c.name)} WHERE ${ident('eventId')} = ${event.eventId}`)
    if (seen) return false
    await tx.records.create(
      c,
      { eventId: event.eventId, type: event.type, payload: event.payload },
      systemRequest(tx),
    )
    await tx.hooks.onPaymentEvent.trigger(
      { app: tx, eventId: event.eventId, type: event.type, payload: event.payload },
      () => undefined,
    )
    return true
  })
}

/**
 * `_payment_events` is read-only through the records API (superusers read it; nobody creates,
 * changes or deletes a row): bound first on the record request hooks, which the records API
 * and batch items pass; the webhook writes through the record service, below these hooks.
 */
export function bindReadOnlyPaymentEvents(app: App): void {
  const options = {
    id: '__svcPaymentEventsReadOnly__',
    priority: -1_000_000,
    func: (): never => {
      throw forbidden(paymentsMessages.paymentEventsReadOnly)
    },
  }
  app.hooks.onRecordCreateRequest.bind(options, [PAYMENT_EVENTS])
  app.hooks.onRecordUpdateRequest.bind(options, [PAYMENT_EVENTS])
  app.hooks.onRecordDeleteRequest.bind(options, [PAYMENT_EVENTS])
}
