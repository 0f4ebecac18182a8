import { verifyPassword } from '../fields/password.js'
import { decodeJwt } from 'jose'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import {
  ApiError,
  badRequest,
  type FieldError,
  hasErrors,
  messages,
  validationError,
  type ValidationErrors,
} from '../errors.js'
import type { RecordData } from '../request-info.js'
import { sendRecordEmail } from './emails.js'
import { bodyText, findByEmail, requireEmail, requiredText } from './lookup.js'
import { AlreadyDone, consumingRequest, TokenSpent } from './single-use.js'
import { systemRequest } from './superusers.js'
import {
  signToken,
  tokenSignedFor,
  verifyToken,
  type TokenType,
  type VerifiedToken,
} from './tokens.js'

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

const invalidData = (data: ValidationErrors): ApiError =>
  badRequest(messages.validationFailed, data)

const required = (): FieldError => validationError('validation_required')
const invalidToken = (): FieldError => validationError('validation_invalid_token')

/** The trimmed `token` of a body; a non-text token is a type error in `errors`. */
const tokenText = (body: Record<string, unknown>, errors: ValidationErrors): string =>
  bodyText(body, 'token', errors).trim()

/**
 * Verifies a token of `type` for collection `c` as PocketBase does: required, then valid and
 * unexpired (signature, record, `exp`), then of this collection. Returns the verified token, or
 * the field error for `token`.
 */
async function readToken(
  app: App,
  c: Collection,
  token: string,
  type: TokenType,
): Promise<{ verified: VerifiedToken } | { error: FieldError }> {
  if (token === '') return { error: required() }
  const verified = await verifyToken(app, token, [type])
  if (!verified) return { error: invalidToken() }
  if (verified.collection.id !== c.id) {
    return {
      error: validationError('validation_token_collection_mismatch'),
    }
  }
  return { verified }
}

/**
 * The system request of a write that consumes `token` (`single-use.ts`): inside the transaction
 * the token must still be signed for the record as read there, and `also` may refuse more.
 */
function consuming(
  app: App,
  c: Collection,
  token: string,
  type: TokenType,
  also?: (original: RecordData) => void,
) {
  return consumingRequest(systemRequest(app), async (original) => {
    if (!(await tokenSignedFor(c, original, token, type))) throw new TokenSpent()
    also?.(original)
  })
}

/** A concurrent confirm consumed the token first: answered like a reused token. */
const spent = (): ApiError => invalidData({ token: invalidToken() })

/** The min length of the collection's password field (PocketBase's reset form bound; 1 if unset). */
function passwordMin(c: Collection): number {
  const min = c.fields.find((f) => f.name === 'password')?.options.min
  return typeof min === 'number' && min > 0 ? min : 1
}

/** `request-verification`: mails a verification link to an unverified record; always quiet. */
export async function requestVerification(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
  guard: ResendGuard,
): Promise<void> {
  if (c.name === '_superusers') throw badRequest(messages.superusersVerified)
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
  if (c.name === '_superusers') throw badRequest(messages.superusersVerified)
  const errors: ValidationErrors = {}
  const token = tokenText(body, errors)
  if (hasErrors(errors)) throw invalidData(errors)
  if (token !== '' && typeof safeClaims(token).email !== 'string') {
    throw invalidData({
      token: validationError('validation_invalid_token_claims'),
    })
  }
  const checked = await readToken(app, c, token, 'verification')
  if ('error' in checked) throw invalidData({ token: checked.error })
  const { record, claims } = checked.verified
  if (claims.email !== record.email) {
    throw invalidData({
      token: validationError('validation_token_email_mismatch'),
    })
  }
  if (record.verified === true) return
  const patch: Record<string, unknown> = { verified: true }
  if (!c.authOptions!.passwordAuth.enabled) {
    const pw = `${crypto.randomUUID()}`
    Object.assign(patch, { password: pw, passwordConfirm: pw })
  }
  // A concurrent confirm that verified the record first leaves nothing to do (204, no write).
  const info = consuming(app, c, token, 'verification', (original) => {
    if (original.verified === true) throw new AlreadyDone()
  })
  try {
    await app.records.update(c, String(record.id), patch, info)
  } catch (err) {
    if (err instanceof AlreadyDone) return
    if (err instanceof TokenSpent) throw spent()
    throw err
  }
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
  if (!c.authOptions!.passwordAuth.enabled) throw badRequest(messages.passwordAuthNotAllowed)
  const email = requireEmail(body)
  const record = await findByEmail(app, c, email)
  if (!record || !guard.allow(`reset:${c.id}:${String(record.id)}`)) return
  const token = await signToken(c, record, 'passwordReset', { email: record.email })
  sendRecordEmail(app, c, record, 'password-reset', { TOKEN: token }).catch((err: unknown) =>
    app.logger.error('failed to send the password reset email', { error: String(err) }),
  )
}

/**
 * `confirm-password-reset`: sets the new password (rotating tokenKey); verifies the email. All
 * field errors (token, password, passwordConfirm) are reported together, as PocketBase does.
 */
export async function confirmPasswordReset(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
): Promise<void> {
  const errors: ValidationErrors = {}
  const token = tokenText(body, errors)
  const checked = errors.token ? null : await readToken(app, c, token, 'passwordReset')
  if (checked && 'error' in checked) errors.token = checked.error
  const password = requiredText(body, 'password', 255, errors, passwordMin(c))
  const confirm = bodyText(body, 'passwordConfirm', errors)
  if (!errors.passwordConfirm) {
    if (confirm === '') errors.passwordConfirm = required()
    else if (confirm !== password)
      errors.passwordConfirm = validationError('validation_values_mismatch')
  }
  if (hasErrors(errors) || !checked || 'error' in checked) throw invalidData(errors)
  const { record, claims } = checked.verified
  const patch: Record<string, unknown> = { password, passwordConfirm: confirm }
  if (claims.email === record.email) patch.verified = true
  try {
    await app.records.update(c, String(record.id), patch, consuming(app, c, token, 'passwordReset'))
  } catch (err) {
    if (err instanceof TokenSpent) throw spent()
    if (err instanceof ApiError && err.status === 400)
      throw badRequest(messages.passwordResetFailed, err.data, err)
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
  if (c.name === '_superusers') throw badRequest(messages.superusersChangeEmail)
  const newEmail = requireEmail(body, 'newEmail')
  if (newEmail.toLowerCase() === String(record.email).toLowerCase()) {
    throw invalidData({ newEmail: validationError('validation_not_in_invalid') })
  }
  if (await findByEmail(app, c, newEmail)) {
    throw invalidData({
      newEmail: validationError('validation_invalid_new_email'),
    })
  }
  const token = await signToken(c, record, 'emailChange', { email: record.email, newEmail })
  try {
    await sendRecordEmail(app, c, record, 'email-change', { TOKEN: token }, newEmail)
  } catch (err) {
    throw badRequest(messages.emailChangeRequestFailed, {}, err)
  }
}

/**
 * The record and new email of an email-change token, or the field error for `token`, checked in
 * PocketBase's order: the `newEmail` claim, the new email still free, then the token itself.
 */
async function readEmailChangeToken(
  app: App,
  c: Collection,
  token: string,
): Promise<{ record: RecordData; newEmail: string } | { error: FieldError }> {
  if (token === '') return { error: required() }
  const newEmail = safeClaims(token).newEmail
  if (typeof newEmail !== 'string' || newEmail === '') {
    return {
      error: validationError('validation_invalid_token_payload'),
    }
  }
  if (await findByEmail(app, c, newEmail)) {
    return {
      error: validationError('validation_invalid_token_email'),
    }
  }
  const checked = await readToken(app, c, token, 'emailChange')
  return 'error' in checked ? checked : { record: checked.verified.record, newEmail }
}

/**
 * `confirm-email-change`: with the current password, moves the record to the new email. Token
 * and password errors are reported together; with a bad token the password cannot be checked
 * against any record, so it is reported invalid too, as PocketBase does.
 */
export async function confirmEmailChange(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
): Promise<void> {
  if (c.name === '_superusers') throw badRequest(messages.superusersChangeEmail)
  const errors: ValidationErrors = {}
  const token = tokenText(body, errors)
  const target = errors.token ? null : await readEmailChangeToken(app, c, token)
  if (target && 'error' in target) errors.token = target.error
  const password = requiredText(body, 'password', 100, errors)
  const hash = target && 'record' in target ? target.record.password : undefined
  if (
    !errors.password &&
    (typeof hash !== 'string' || hash === '' || !(await verifyPassword(password, hash)))
  ) {
    errors.password = validationError('validation_invalid_password')
  }
  if (hasErrors(errors) || !target || 'error' in target) throw invalidData(errors)
  // NB: the move rotates tokenKey, as a password change since the check would have.
  const info = consuming(app, c, token, 'emailChange')
  try {
    await app.records.update(
      c,
      String(target.record.id),
      { email: target.newEmail, verified: true },
      info,
    )
  } catch (err) {
    if (err instanceof TokenSpent) throw spent()
    throw err
  }
}
