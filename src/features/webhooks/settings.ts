import { objectGroup } from '../../core/settings/index.js'
import { maxThreshold } from '../../core/fields/generic-errors.js'

/** `webhooks`: how outgoing webhooks are delivered (the rows live in `_webhooks`). */
export type WebhooksSettings = {
  /**
   * Lets deliveries reach loopback, private, link-local, CGNAT and ULA addresses (a development
   * or test setup); false refuses them (the SSRF guard).
   */
  allowPrivateNetworks: boolean
  /** Seconds one delivery attempt may take, connection included. */
  timeout: number
  /** Attempts of one delivery before it is given up (the first included). */
  maxAttempts: number
}

declare module '../../core/settings/registry.js' {
  interface Settings {
    webhooks: WebhooksSettings
  }
}

/** The longest attempt, in seconds. */
export const MAX_TIMEOUT = 120
/** The most attempts of one delivery. */
export const MAX_ATTEMPTS = 30

/** The `webhooks` group: private networks refused, 10 s per attempt, 12 attempts (~24 h). */
export const webhooksSettings = objectGroup<WebhooksSettings>({
  key: 'webhooks',
  defaults: () => ({ allowPrivateNetworks: false, timeout: 10, maxAttempts: 12 }),
  check(g) {
    g.boolean('allowPrivateNetworks')
    g.count('timeout', 1, true)
    g.count('maxAttempts', 1, true)
    const timeout = g.integer('timeout')
    if (timeout !== undefined && timeout > MAX_TIMEOUT) g.fail('timeout', maxThreshold(MAX_TIMEOUT))
    const attempts = g.integer('maxAttempts')
    if (attempts !== undefined && attempts > MAX_ATTEMPTS)
      g.fail('maxAttempts', maxThreshold(MAX_ATTEMPTS))
  },
})
