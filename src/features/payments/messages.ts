/** Top-level messages of the payment webhooks (`POST /api/payments/webhook`). */
import type { Args } from '../../core/errors/catalogue.js'

const header = 'the Stripe-Signature header'

/** Messages of the payments feature: each refusal of an incoming payment event. */
export const paymentsMessages = {
  paymentsNotConfigured:
    'Payment webhooks are not configured: set payments.webhookSecret in the settings.',
  paymentsSignatureMissing: `No Stripe-Signature header value was provided.`,
  paymentsSignatureMalformed: `Unable to extract timestamp and signatures from ${header}.`,
  paymentsSignatureNoScheme: `No signatures found with expected scheme v1 in ${header}.`,
  paymentsSignatureMismatch:
    'No signatures found matching the expected signature for payload: sign the exact raw request body with the endpoint secret.',
  paymentsTimestampOutsideTolerance: ({ seconds }: Args<'seconds'>) =>
    `Timestamp outside the tolerance zone: ${header} must be signed within ${seconds} seconds of the server's time.` as const,
  paymentsEventInvalid: ({ field }: Args<'field'>) =>
    `The payment event must be a JSON object with a non-empty string ${field}.` as const,
  paymentEventsReadOnly:
    'The _payment_events records are written only by the payment webhook and cannot be changed through the records API.',
} as const

declare module '../../core/errors/catalogue.js' {
  interface FeatureMessages {
    payments: typeof paymentsMessages
  }
}
