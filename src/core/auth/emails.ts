import type { App } from '../app.js'
import type { AuthOptions, Collection, EmailTemplate } from '../collections/model.js'
import { getFieldType } from '../fields/registry.js'
import { renderTemplate } from '../mail.js'
import type { RecordData } from '../request-info.js'

/** The per-collection templates, by the names `POST /settings/test/email` accepts. */
export const TEMPLATE_NAMES = [
  'verification',
  'password-reset',
  'email-change',
  'otp',
  'login-alert',
] as const

/** One of the template names. */
export type TemplateName = (typeof TEMPLATE_NAMES)[number]

/** The template of a collection for a name. */
export function templateOf(options: AuthOptions, name: TemplateName): EmailTemplate {
  switch (name) {
    case 'verification':
      return options.verificationTemplate
    case 'password-reset':
      return options.resetPasswordTemplate
    case 'email-change':
      return options.confirmEmailChangeTemplate
    case 'otp':
      return options.otp.emailTemplate
    case 'login-alert':
      return options.authAlert.emailTemplate
  }
}

/** Placeholder values for a record: `{RECORD:field}` for every non-hidden, serialisable field. */
function recordVars(c: Collection, record: RecordData): Record<string, string> {
  const vars: Record<string, string> = {}
  for (const f of c.fields) {
    if (f.hidden || getFieldType(f.type)?.serialised === false) continue
    const v = record[f.name]
    vars[`RECORD:${f.name}`] = typeof v === 'string' ? v : JSON.stringify(v ?? '')
  }
  return vars
}

/**
 * Renders one of a collection's templates for a record and sends it, from the sender of
 * `settings.meta`. `to` defaults to the record's email (email change mails the new address).
 */
export async function sendRecordEmail(
  app: App,
  c: Collection,
  record: RecordData,
  name: TemplateName,
  vars: Record<string, string>,
  to?: string,
): Promise<void> {
  if (!c.authOptions) throw new Error(`${c.name} is not an auth collection`)
  const meta = app.settings.get().meta
  const { subject, html } = renderTemplate(templateOf(c.authOptions, name), {
    ...recordVars(c, record),
    APP_NAME: meta.appName,
    APP_URL: meta.appURL,
    ...vars,
  })
  await app.services.get('mailer').send({
    from: { address: meta.senderAddress, name: meta.senderName },
    to: [{ address: to ?? (typeof record.email === 'string' ? record.email : '') }],
    subject,
    html,
  })
}
