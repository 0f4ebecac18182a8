import type { App } from './app.js'
import type { EmailTemplate } from './collections/model.js'
import type { Logger } from './logger.js'

/** An e-mail address with an optional display name. */
export interface MailAddress {
  address: string
  name?: string
}

/** One message to send. */
export interface MailMessage {
  from: MailAddress
  to: MailAddress[]
  subject: string
  html: string
  text?: string
  headers?: Record<string, string>
  /** Copies: named in the `Cc` header. */
  cc?: MailAddress[]
  /** Blind copies: recipients of the envelope only, in no header. */
  bcc?: MailAddress[]
  /** Attached files. */
  attachments?: MailAttachment[]
}

/** A file attached to a message. */
export interface MailAttachment {
  filename: string
  content: Buffer
}

/** Sends mail; the app's implementation follows `settings.smtp` and changes with it. */
export interface Mailer {
  send(message: MailMessage): Promise<void>
}

/**
 * Sends a message through the app's mailer, around `onMailerSend`: handlers may change
 * `e.message` before `e.next()` or skip it to send nothing. Every mail goes through here.
 */
export async function sendMail(app: App, message: MailMessage): Promise<void> {
  await app.hooks.onMailerSend.trigger({ app, mailer: app.services.get('mailer'), message }, (e) =>
    e.mailer.send(e.message),
  )
}

/**
 * The zero-config backend used while SMTP is disabled: the whole message goes to the log and
 * stdout, so nothing is lost and development needs no mail server.
 */
export class LogMailer implements Mailer {
  constructor(private readonly logger: Logger) {}

  send(message: MailMessage): Promise<void> {
    this.logger.info('mail (log backend: SMTP is disabled)', {
      from: message.from.address,
      to: message.to.map((t) => t.address),
      ...(message.cc?.length ? { cc: message.cc.map((t) => t.address) } : {}),
      ...(message.bcc?.length ? { bcc: message.bcc.map((t) => t.address) } : {}),
      ...(message.attachments?.length
        ? { attachments: message.attachments.map((a) => a.filename) }
        : {}),
      subject: message.subject,
      html: message.html,
      ...(message.text ? { text: message.text } : {}),
    })
    return Promise.resolve()
  }
}

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  )

/**
 * Fills `{NAME}` placeholders of a template (plain string replacement in subject and body).
 * Values listed in `htmlSafe` are inserted as given; all others are HTML-escaped in the body.
 */
export function renderTemplate(
  template: EmailTemplate,
  vars: Record<string, string>,
): { subject: string; html: string } {
  const fill = (text: string, escape: boolean) =>
    text.replace(/\{([A-Z_]+(?::\w+)?)\}/g, (m, key: string) =>
      key in vars ? (escape ? escapeHtml(vars[key]!) : vars[key]!) : m,
    )
  return { subject: fill(template.subject, false), html: fill(template.body, true) }
}
