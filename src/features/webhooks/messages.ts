/** Top-level messages of outgoing webhooks (`_webhooks`, `_webhook_outbox`). */

/** Messages of the webhooks feature. */
export const webhooksMessages = {
  webhookOutboxReadOnly:
    'The webhook outbox is written by svcbase only: its deliveries cannot be created, changed or deleted through the API.',
} as const

declare module '../../core/errors/catalogue.js' {
  interface FeatureMessages {
    webhooks: typeof webhooksMessages
  }
}
