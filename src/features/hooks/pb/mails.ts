/**
 * PocketBase's `$mails` (the auth mails of a record: password reset, verification, email change,
 * OTP, auth alert), `new MailerMessage({...})` and the mail client of `$app.newMailClient()`,
 * for `*.pb.js` scripts. Each mail goes through svcbase's mailer as the built-in flows send it
 * (`core/auth/emails.ts`, `core/mail.ts`): the collection's template, the `onMailerRecord…Send`
 * hook, then `onMailerSend`. A send is queued on the running handler (see `invocation.ts`): its
 * failure fails the handler.
 */
import type { App } from '../../../core/app.js'
import { sendRecordEmail, type TemplateName } from '../../../core/auth/emails.js'
import { signToken } from '../../../core/auth/tokens.js'
import { messages } from '../../../core/errors.js'
import {
  sendMail,
  type MailAddress,
  type MailAttachment,
  type MailMessage,
} from '../../../core/mail.js'
import { readerContent } from './filesystem.js'
import { currentApp, enqueue } from './invocation.js'
import { asPbRecord, type PbRecord } from './record.js'
import { PbUnsupportedError, strict } from './unsupported.js'

/** The auth record a `$mails` call names, or a clear error. */
function authRecordArg(rec: unknown, name: string): PbRecord {
  const r = asPbRecord(rec)
  if (!r || r.svcCollection.type !== 'auth' || r.isNew())
    throw new Error(messages.pbBadArgument({ name, expected: 'a stored auth record' }))
  return r
}

/** A text argument, or a clear error. */
function textArg(v: unknown, name: string, what: string): string {
  if (typeof v !== 'string' || v === '')
    throw new Error(messages.pbBadArgument({ name, expected: what }))
  return v
}

/** PocketBase's `$mails`: each call queues the mail, sent as the built-in flow sends it. */
export function mailsGlobal(base: App): object {
  const appNow = (): App => currentApp() ?? base
  const send = (
    name: string,
    rec: unknown,
    template: TemplateName,
    vars: (r: PbRecord) => Promise<Record<string, string>>,
    to?: string,
  ): void => {
    const r = authRecordArg(rec, `$mails.${name}`)
    const app = appNow()
    const data = r.svcData
    enqueue(`$mails.${name}`, async () =>
      sendRecordEmail(app, r.svcCollection, data, template, await vars(r), to),
    )
  }
  const token = (r: PbRecord, type: 'verification' | 'passwordReset') =>
    signToken(r.svcCollection, r.svcData, type, { email: r.svcData.email })
  return strict('$mails', {
    sendRecordPasswordReset: (_app: unknown, rec: unknown) =>
      send('sendRecordPasswordReset', rec, 'password-reset', async (r) => ({
        TOKEN: await token(r, 'passwordReset'),
      })),
    sendRecordVerification: (_app: unknown, rec: unknown) =>
      send('sendRecordVerification', rec, 'verification', async (r) => ({
        TOKEN: await token(r, 'verification'),
      })),
    sendRecordChangeEmail: (_app: unknown, rec: unknown, newEmail: unknown) => {
      const email = textArg(newEmail, '$mails.sendRecordChangeEmail', 'a new email address')
      send(
        'sendRecordChangeEmail',
        rec,
        'email-change',
        async (r) => ({
          TOKEN: await signToken(r.svcCollection, r.svcData, 'emailChange', {
            email: r.svcData.email,
            newEmail: email,
          }),
        }),
        email,
      )
    },
    sendRecordOTP: (_app: unknown, rec: unknown, otpId: unknown, pass: unknown) => {
      const id = textArg(otpId, '$mails.sendRecordOTP', 'an OTP id')
      const password = textArg(pass, '$mails.sendRecordOTP', 'the OTP password')
      send('sendRecordOTP', rec, 'otp', () => Promise.resolve({ OTP: password, OTP_ID: id }))
    },
    sendRecordAuthAlert: (_app: unknown, rec: unknown, info: unknown) =>
      send('sendRecordAuthAlert', rec, 'login-alert', () =>
        Promise.resolve({ ALERT_INFO: typeof info === 'string' ? info : '' }),
      ),
  })
}

/** An address of a message (`{address, name}`), or a clear error. */
function addressOf(v: unknown, name: string): MailAddress {
  const a = v as { address?: unknown; name?: unknown } | null
  if (!a || typeof a !== 'object' || typeof a.address !== 'string' || a.address === '')
    throw new Error(messages.pbBadArgument({ name, expected: 'an address {address, name}' }))
  return typeof a.name === 'string' && a.name !== ''
    ? { address: a.address, name: a.name }
    : { address: a.address }
}

const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : [])

/** `new MailerMessage({...})`: PocketBase's message shape, every member present. */
export function MailerMessage(data?: unknown): Record<string, unknown> {
  const d = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>
  return {
    from: d.from ?? { address: '', name: '' },
    to: listOf(d.to),
    bcc: listOf(d.bcc),
    cc: listOf(d.cc),
    subject: typeof d.subject === 'string' ? d.subject : '',
    html: typeof d.html === 'string' ? d.html : '',
    text: typeof d.text === 'string' ? d.text : '',
    headers: d.headers && typeof d.headers === 'object' ? d.headers : {},
    attachments: d.attachments && typeof d.attachments === 'object' ? d.attachments : {},
    inlineAttachments:
      d.inlineAttachments && typeof d.inlineAttachments === 'object' ? d.inlineAttachments : {},
  }
}

/**
 * The attachments of a message (`{name: reader}`, the readers of `$filesystem` files'
 * `reader.open()`), read when the message is sent; anything else is a clear error now.
 */
function attachmentsOf(v: unknown, name: string, app: () => App): () => Promise<MailAttachment[]> {
  const entries: { filename: string; content: () => Promise<Buffer> }[] = []
  for (const [filename, reader] of Object.entries(v as Record<string, unknown>)) {
    const content = readerContent(reader)
    // As PocketBase, an attachment that is not a reader is left out (and said in the log).
    if (content) entries.push({ filename, content })
    else
      app().logger.warn(
        messages.pbBadArgument({
          name: `${name} attachments["${filename}"]`,
          expected: "a reader (a $filesystem file's reader.open()); it was left out",
        }),
      )
  }
  return async () => {
    const out: MailAttachment[] = []
    for (const e of entries) out.push({ filename: e.filename, content: await e.content() })
    return out
  }
}

/** svcbase's message of a script's (`MailerMessage` or a plain object of its shape). */
function messageOf(
  v: unknown,
  app: () => App,
): {
  message: MailMessage
  attachments: () => Promise<MailAttachment[]>
} {
  const name = 'newMailClient().send'
  const m = MailerMessage(v)
  if (Object.keys(m.inlineAttachments as object).length > 0)
    throw new PbUnsupportedError('message.inlineAttachments')
  const cc = (m.cc as unknown[]).map((a) => addressOf(a, name))
  const bcc = (m.bcc as unknown[]).map((a) => addressOf(a, name))
  const attachments = attachmentsOf(m.attachments, name, app)
  const to = (m.to as unknown[]).map((a) => addressOf(a, name))
  if (to.length === 0)
    throw new Error(messages.pbBadArgument({ name, expected: 'a message with a "to" address' }))
  const headers: Record<string, string> = {}
  for (const [k, val] of Object.entries(m.headers as object)) headers[k] = String(val)
  const message: MailMessage = {
    from: addressOf(m.from, name),
    to,
    subject: m.subject as string,
    html: m.html as string,
    ...(m.text !== '' ? { text: m.text as string } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(cc.length > 0 ? { cc } : {}),
    ...(bcc.length > 0 ? { bcc } : {}),
  }
  return { message, attachments }
}

/** `$app.newMailClient()`: `send(message)` queues the message through `onMailerSend`. */
export function mailClient(appOf: () => App): object {
  return strict('mailClient', {
    send: (message: unknown): void => {
      const { message: m, attachments } = messageOf(message, appOf)
      const app = appOf()
      enqueue('newMailClient().send', async () => {
        const files = await attachments()
        await sendMail(app, files.length > 0 ? { ...m, attachments: files } : m)
      })
    },
  })
}
