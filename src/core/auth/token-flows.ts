import { verifyPassword } from '../fields/password.js'
import { decodeJwt } from 'jose'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import {
  ApiError,
  badRequest,
  fieldError,
  type FieldError,
  type ValidationErrors,
} from '../errors.js'
import type { RecordData } from '../request-info.js'
import { sendRecordEmail } from './emails.js'
import { findByEmail, isEmailShaped, requiredText } from './lookup.js'
import { systemRequest } from './superusers.js'
import { signToken, verifyToken, type TokenType } from './tokens.js'

/** A repeat request for the same record within this window sends nothing (reference §1.4). */
const RESEND_WINDOW_MS = 120_000

/** Remembers when a mail of each kind last went to a record, to throttle resends. */
export class ResendGuard {
  private readonly sent = new Map<string, number>()

  /** True (and remembered) when a mail may be sent now. */
  allow(key: string, now = Date.now()): boolean {
    const last = this.sent.get(key)
    if (last !== undefined && now - last < RESEND_WINDOW_MS) return false
    this.sent.set(key, now)
    if (this.sent.size > 10_000) {
      for (const [k, t] of this.sent) if (now - t >= RESEND_WINDOW_MS) this.sent.delete(k)
    }
    return true
  }
}

const str = (body: Record<string, unknown>, key: string): string => {
  const v = body[key]
  return typeof v === 'string' ? v.trim() : ''
}

const invalidData = (data: ValidationErrors): ApiError =>
  badRequest('An error occurred while validating the submitted data.', data)

function requireEmail(body: Record<string, unknown>, key = 'email'): string {
  const email = str(body, key)
  if (email === '')
    throw invalidData({ [key]: fieldError('validation_required', 'Cannot be blank.') })
  if (!isEmailShaped(email))
    throw invalidData({
      [key]: fieldError('validation_is_email', 'Must be a valid email address.'),
    })
  return email
}

/** Verifies a token of `type` for collection `c`; failures become a field error on `token`. */
async function checkToken(app: App, c: Collection, token: string, type: TokenType) {
  const fail = (e: FieldError) => invalidData({ token: e })
  if (token === '') throw fail(fieldError('validation_required', 'Cannot be blank.'))
  let claims: Record<string, unknown>
  try {
    claims = decodeJwt(token)
  } catch {
    throw fail(fieldError('validation_invalid_token', 'Invalid or expired token.'))
  }
  if (claims.collectionId !== c.id) {
    throw fail(
      fieldError(
        'validation_token_collection_mismatch',
        'The provided token is for different auth collection.',
      ),
    )
  }
  const verified = await verifyToken(app, token, [type])
  if (!verified) throw fail(fieldError('validation_invalid_token', 'Invalid or expired token.'))
  return verified
}

/** `request-verification`: mails a verification link to an unverified record; always quiet. */
export async function requestVerification(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
  guard: ResendGuard,
): Promise<void> {
  if (c.name === '_superusers') throw badRequest('All superusers are verified by default.')
  const email = requireEmail(body)
  const record = await findByEmail(app, c, email)
  if (
    !record ||
    record.verified === true ||
    !guard.allow(`verification:${c.id}:${String(record.id)}`)
  )
    return
  const token = await signToken(c, record, 'verification', { email: record.email })
  sendRecordEmail(app, c, record, 'verification', { TOKEN: token }).catch((err: unknown) =>
    app.logger.error('failed to send the verification email', { error: String(err) }),
  )
}

/** `confirm-verification`: marks the record of a valid token verified. */
export async function confirmVerification(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
): Promise<void> {
  if (c.name === '_superusers') throw badRequest('All superusers are verified by default.')
  const token = str(body, 'token')
  if (token !== '' && typeof safeClaims(token).email !== 'string') {
    throw invalidData({
      token: fieldError('validation_invalid_token_claims', 'Missing email token claim.'),
    })
  }
  const { record, claims } = await checkToken(app, c, token, 'verification')
  if (claims.email !== record.email) {
    throw invalidData({
      token: fieldError(
        'validation_token_email_mismatch',
        "The record email doesn't match with the requested token claims.",
      ),
    })
  }
  if (record.verified === true) return
  const patch: Record<string, unknown> = { verified: true }
  if (!c.authOptions!.passwordAuth.enabled) {
    const pw = `${crypto.randomUUID()}`
    Object.assign(patch, { password: pw, passwordConfirm: pw })
  }
  await app.records.update(c, String(record.id), patch, systemRequest(app))
}

function safeClaims(token: string): Record<string, unknown> {
  try {
    return decodeJwt(token)
  } catch {
    return {}
  }
}

/** `request-password-reset`: mails a reset link; always quiet about unknown emails. */
export async function requestPasswordReset(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
  guard: ResendGuard,
): Promise<void> {
  if (!c.authOptions!.passwordAuth.enabled)
    throw badRequest('The collection is not configured to allow password authentication.')
  const email = requireEmail(body)
  const record = await findByEmail(app, c, email)
  if (!record || !guard.allow(`reset:${c.id}:${String(record.id)}`)) return
  const token = await signToken(c, record, 'passwordReset', { email: record.email })
  sendRecordEmail(app, c, record, 'password-reset', { TOKEN: token }).catch((err: unknown) =>
    app.logger.error('failed to send the password reset email', { error: String(err) }),
  )
}

/** `confirm-password-reset`: sets the new password (rotating tokenKey); verifies the email. */
export async function confirmPasswordReset(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
): Promise<void> {
  const errors: ValidationErrors = {}
  const password = requiredText(body, 'password', 255, errors)
  const confirm = typeof body.passwordConfirm === 'string' ? body.passwordConfirm : ''
  if (confirm === '') errors.passwordConfirm = fieldError('validation_required', 'Cannot be blank.')
  else if (confirm !== password)
    errors.passwordConfirm = fieldError('validation_values_mismatch', "Values don't match.")
  const { record, claims } = await checkToken(app, c, str(body, 'token'), 'passwordReset')
  if (Object.keys(errors).length > 0) throw invalidData(errors)
  const patch: Record<string, unknown> = { password, passwordConfirm: confirm }
  if (claims.email === record.email) patch.verified = true
  try {
    await app.records.update(c, String(record.id), patch, systemRequest(app))
  } catch (err) {
    if (err instanceof ApiError && err.status === 400)
      throw badRequest('Failed to set new password.', err.data, err)
    throw err
  }
}

/** `request-email-change`: mails a confirmation link to the new address (synchronously). */
export async function requestEmailChange(
  app: App,
  c: Collection,
  record: RecordData,
  body: Record<string, unknown>,
): Promise<void> {
  if (c.name === '_superusers') throw badRequest('All superusers can change their emails directly.')
  const newEmail = requireEmail(body, 'newEmail')
  if (newEmail.toLowerCase() === String(record.email).toLowerCase()) {
    throw invalidData({ newEmail: fieldError('validation_not_in_invalid', 'Must not be in list.') })
  }
  if (await findByEmail(app, c, newEmail)) {
    throw invalidData({
      newEmail: fieldError('validation_invalid_new_email', 'Invalid new email address.'),
    })
  }
  const token = await signToken(c, record, 'emailChange', { email: record.email, newEmail })
  try {
    await sendRecordEmail(app, c, record, 'email-change', { TOKEN: token }, newEmail)
  } catch (err) {
    throw badRequest('Failed to request email change.', {}, err)
  }
}

/** `confirm-email-change`: with the current password, moves the record to the new email. */
export async function confirmEmailChange(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
): Promise<void> {
  if (c.name === '_superusers') throw badRequest('All superusers can change their emails directly.')
  const token = str(body, 'token')
  if (token !== '' && typeof safeClaims(token).newEmail !== 'string') {
    throw invalidData({
      token: fieldError(
        'validation_invalid_token_payload',
        'Invalid token payload - newEmail must be set.',
      ),
    })
  }
  const { record, claims } = await checkToken(app, c, token, 'emailChange')
  const newEmail = String(claims.newEmail)
  if (await findByEmail(app, c, newEmail)) {
    throw invalidData({
      token: fieldError('validation_invalid_token_email', 'The new email address is invalid.'),
    })
  }
  const password = typeof body.password === 'string' ? body.password : ''
  if (password === '')
    throw invalidData({ password: fieldError('validation_required', 'Cannot be blank.') })
  if (typeof record.password !== 'string' || !(await verifyPassword(password, record.password))) {
    throw invalidData({
      password: fieldError(
        'validation_invalid_password',
        'Missing or invalid auth record password.',
      ),
    })
  }
  await app.records.update(
    c,
    String(record.id),
    { email: newEmail, verified: true },
    systemRequest(app),
  )
}
