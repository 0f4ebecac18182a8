/** Top-level messages of push notifications (`features/push`). */
import type { Entry } from '../../core/errors/catalogue.js'

/** Messages of the push feature. */
export const pushMessages = {
  pushSendFailed: 'Failed to send the push notification.',
} as const satisfies Record<string, Entry>

declare module '../../core/errors/catalogue.js' {
  interface FeatureMessages {
    push: typeof pushMessages
  }
}
