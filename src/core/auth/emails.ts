import type { App } from '../app.js'
import type { AuthOptions, Collection, EmailTemplate } from '../collections/model.js'
import { getFieldType } from '../fields/registry.js'
import type { Hook } from '../../tools/hook.js'
import type { AppHooks } from '../hooks.js'
import type { MailerRecordEvent } from '../hooks-mail.js'
import { renderTemplate, sendMail } from '../mail.js'
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

/** The `onMailerRecord*Send` hook of each template. */
const HOOK_OF: Record<TemplateName, (hooks: AppHooks) => Hook<MailerRecordEvent>> = {
  verification: (h) => h.onMailerRecordVerificationSend,
  'password-reset': (h) => h.onMailerRecordPasswordResetSend,
  'email-change': (h) => h.onMailerRecordEmailChangeSend,
  otp: (h) => h.onMailerRecordOTPSend,
  'login-alert': (h) => h.onMailerRecordAuthAlertSend,
}

/** PocketBase's `meta` of a record mail, from the placeholder values it was rendered with. */
function metaOf(
  vars: Record<string, string>,
  name: TemplateName,
  to: string,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {}
  if (vars.TOKEN !== undefined) meta.token = vars.TOKEN
  if (vars.OTP_ID !== undefined) meta.otpId = vars.OTP_ID
  if (vars.OTP !== undefined) meta.password = vars.OTP
  if (vars.ALERT_INFO !== undefined) meta.info = vars.ALERT_INFO
  if (name === 'email-change') meta.newEmail = to
  return meta
}

/**
 * Renders one of a collection's templates for a record and sends it, from the sender of
 * `settings.meta`. `to` defaults to the record's email (email change mails the new address).
 * The template's `onMailerRecord*Send` hook runs around the send (tagged with the collection),
 * then `onMailerSend`.
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
  const address = to ?? (typeof record.email === 'string' ? record.email : '')
  await HOOK_OF[name](app.hooks).trigger(
    {
      app,
      mailer: app.services.get('mailer'),
      message: {
        from: { address: meta.senderAddress, name: meta.senderName },
        to: [{ address }],
        subject,
        html,
      },
      collection: c,
      record,
      meta: metaOf(vars, name, address),
    },
    (e) => sendMail(e.app, e.message),
    [c.id, c.name],
  )
}
