import type { Feature } from '../../http/feature.js'
import { paymentsSettings } from './settings.js'

/**
 * Payments (not built yet: its endpoints answer 501 from `not-built`). Declares the `payments`
 * settings group, so that the webhook secret can be set ahead of time.
 */
export function paymentsFeature(): Feature {
  return {
    name: 'payments',
    register: ({ app }) => app.registerSettingsGroup(paymentsSettings),
  }
}
