import type { HookEvent } from '../tools/hook.js'
import type { App } from './app.js'
import type { Collection } from './collections/model.js'
import type { Mailer, MailMessage } from './mail.js'
import type { RecordData } from './request-info.js'

/**
 * The event of `onMailerSend`: every mail, around the actual send (`e.next()` hands
 * `e.message` to `e.mailer`). A handler may change the message, or skip `e.next()` to send
 * nothing. Mail is sent outside any transaction.
 */
export interface MailerEvent extends HookEvent {
  app: App
  mailer: Mailer
  message: MailMessage
}

/**
 * The event of the `onMailerRecord*Send` hooks: a rendered auth mail for `record`, before it
 * goes to `onMailerSend`. `meta` holds the values it was made from (`token`, `newEmail`,
 * `otpId`, `password`, `info`, as PocketBase's).
 */
export interface MailerRecordEvent extends MailerEvent {
  collection: Collection
  record: RecordData
  meta: Record<string, unknown>
}
