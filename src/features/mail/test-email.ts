import type { App } from '../../core/app.js'
import { TEMPLATE_NAMES, sendRecordEmail, type TemplateName } from '../../core/auth/emails.js'
import {
  badRequest,
  hasErrors,
  messages,
  validationError,
  type ValidationErrors,
} from '../../core/errors.js'
import { isEmail } from '../../core/fields/email.js'
import { required, unsupportedType } from '../../core/fields/generic-errors.js'
import { getFieldType } from '../../core/fields/registry.js'
import type { RecordData } from '../../core/request-info.js'

/** The obviously fake placeholder values a test email is filled with (SPEC §4.7 rule 3). */
export const TEST_EMAIL_VARS: Readonly<Record<string, string>> = {
  TOKEN: 'TEST_TOKEN_NOT_VALID',
  OTP: '123456',
  OTP_ID: 'TEST_OTP_ID',
}

const isTemplateName = (v: string): v is TemplateName =>
  (TEMPLATE_NAMES as readonly string[]).includes(v)

/**
 * Validates a `POST /api/settings/test/email` body and sends the chosen template of the chosen
 * auth collection to `email`, with a blank record and fake token, OTP and alert values.
 * Throws 400 `Failed to send the test email.` with field errors for bad input, and 400 with the
 * raw error appended when the mailer fails.
 */
export async function sendTestEmail(app: App, body: Record<string, unknown>): Promise<void> {
  const errors: ValidationErrors = {}
  const { email, template, collection: collectionName } = body

  if (email === undefined || email === null || email === '') errors.email = required()
  else if (typeof email !== 'string') errors.email = unsupportedType()
  else if (!isEmail(email)) errors.email = validationError('validation_is_email')

  if (template === undefined || template === null || template === '') errors.template = required()
  else if (typeof template !== 'string' || !isTemplateName(template))
    errors.template = validationError('validation_in_invalid')

  const name =
    collectionName === undefined || collectionName === null || collectionName === ''
      ? '_superusers'
      : collectionName
  const collection = typeof name === 'string' ? app.collections.find(name) : undefined
  if (!collection?.authOptions) {
    errors.collection = validationError('validation_invalid_auth_collection')
  }

  if (
    hasErrors(errors) ||
    typeof email !== 'string' ||
    typeof template !== 'string' ||
    !isTemplateName(template) ||
    !collection
  ) {
    throw badRequest(messages.testEmailFailed, errors)
  }

  const record: RecordData = {}
  for (const f of collection.fields) record[f.name] = getFieldType(f.type)?.zero(f) ?? ''
  record.email = email

  const vars = {
    ...TEST_EMAIL_VARS,
    ALERT_INFO: `${new Date().toISOString().replace('T', ' ')} - 127.0.0.1 Test browser (svcbase test email)`,
  }
  try {
    await sendRecordEmail(app, collection, record, template, vars)
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err)
    throw badRequest(messages.testEmailRawError({ raw }), {}, err)
  }
}
