/** Top-level messages of push notifications (`features/push`). */
import type { Entry } from './catalogue.js'

/** Messages of the push feature. */
export const pushMessages = {
  pushSendFailed: 'Failed to send the push notification.',
} as const satisfies Record<string, Entry>
