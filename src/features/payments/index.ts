import type { Feature } from '../../http/feature.js'
import { registerWebhookRoute } from './routes/webhook.js'
import { bindReadOnlyPaymentEvents } from './service.js'
import { paymentsSettings } from './settings.js'
import { paymentsMessages } from './messages.js'
import { paymentsCollections } from './collections.js'

/**
 * Payments (docs/payments.md): `POST /api/payments/webhook` takes Stripe-signed events,
 * verified against the write-only `payments.webhookSecret`, stores each event once in
 * `_payment_events` (read-only through the records API) and runs `onPaymentEvent` in the same
 * transaction.
 */
export function paymentsFeature(): Feature {
  return {
    name: 'payments',
    systemCollections: paymentsCollections,
    messages: paymentsMessages,
    register: async ({ app, http }) => {
      app.registerSettingsGroup(paymentsSettings)
      bindReadOnlyPaymentEvents(app)
      await registerWebhookRoute(app, http)
    },
  }
}
