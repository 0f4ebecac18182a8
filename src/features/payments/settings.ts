import { objectGroup } from '../../core/settings/index.js'

/** `payments`: the webhook signature secret. */
export type PaymentsSettings = {
  /** Write-only. */
  webhookSecret: string
}

declare module '../../core/settings/registry.js' {
  interface Settings {
    payments: PaymentsSettings
  }
}

/** The `payments` group: one write-only key, the secret webhooks are signed with. */
export const paymentsSettings = objectGroup<PaymentsSettings>({
  key: 'payments',
  secrets: ['webhookSecret'],
  defaults: () => ({ webhookSecret: '' }),
  check(g) {
    g.string('webhookSecret')
  },
})
