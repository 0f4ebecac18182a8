/**
 * Messages and field error entries of SMS (`features/sms`): the test SMS endpoint, a send the
 * provider refused, and the `authOptions.otp.smsField` option of auth collections.
 */
import type { Args, Entry } from './catalogue.js'

/** Top-level messages of SMS. */
export const smsMessages = {
  testSmsFailed: 'Failed to send the test SMS.',
  testSmsRawError: ({ raw }: Args<'raw'>) =>
    `Failed to send the test SMS. Raw error: ${raw}` as const,
  smsInvalid: 'Invalid SMS: check the recipient number and the text.',
} as const satisfies Record<string, Entry>

/** Field error entries of SMS. */
export const smsCodes = {
  'validation_in_invalid:sms_field': 'Must be the name of a text field of the collection.',
} as const satisfies Record<string, Entry>
