import { verifyPassword } from '../fields/password.js'
import { sql } from '../../store/sql.js'
import { newId, randomString } from '../../tools/ids.js'
import type { App } from '../app.js'
import { smsSender } from '../hooks-sms.js'
import type { Collection } from '../collections/model.js'
import { ApiError, badRequest, forbidden, messages, type ValidationErrors } from '../errors.js'
import type { RecordData } from '../request-info.js'
import { bindAuthCascade } from './cascade.js'
import { sendRecordEmail } from './emails.js'
import { findByEmail, requireEmail, requiredText } from './lookup.js'
import { systemRequest } from './superusers.js'

/** Attempts allowed per (record, client IP) within the window, whatever the rate-limit settings. */
export const OTP_MAX_ATTEMPTS_PER_IP = 5
/**
 * Attempts allowed per record within the window, from all addresses together: the client IP may
 * be spoofed behind a trusted proxy (`useLeftmostIP`), so the per-IP count alone bounds nothing.
 */
export const OTP_MAX_ATTEMPTS_PER_RECORD = 10
const ATTEMPT_WINDOW_MS = 180_000

/** Counts OTP attempts per (record, IP) and per record in memory. */
export class OtpAttempts {
  private readonly seen = new Map<string, number[]>()

  /**
   * Records an attempt of `record` from `ip`; false (nothing recorded) when either limit is
   * already reached.
   */
  hit(record: string, ip: string, now = Date.now()): boolean {
    const perIp = this.recent(`${record}:${ip}`, now)
    const perRecord = this.recent(record, now)
    if (perIp.length >= OTP_MAX_ATTEMPTS_PER_IP || perRecord.length >= OTP_MAX_ATTEMPTS_PER_RECORD)
      return false
    perIp.push(now)
    perRecord.push(now)
    if (this.seen.size > 10_000) this.prune(now)
    return true
  }

  /** The attempts of `key` still in the window (the stored list, pruned). */
  private recent(key: string, now: number): number[] {
    const list = (this.seen.get(key) ?? []).filter((t) => now - t < ATTEMPT_WINDOW_MS)
    this.seen.set(key, list)
    return list
  }

  private prune(now: number): void {
    for (const [k, v] of this.seen)
      if (v.every((t) => now - t >= ATTEMPT_WINDOW_MS)) this.seen.delete(k)
  }
}

/** Binds the cascade that deletes a deleted auth record's `_otps` rows (`bindAuthCascade`). */
export function bindOtpCascade(app: App): void {
  bindAuthCascade(app, '_otps')
}

function requireOtp(c: Collection): void {
  if (!c.authOptions?.otp.enabled) throw forbidden(messages.otpNotAllowed)
}

const isExpired = (created: unknown, seconds: number): boolean =>
  Date.parse(String(created).replace(' ', 'T')) + seconds * 1000 < Date.now()

/**
 * The E.164 number an OTP goes to by SMS: the value of the collection's `otp.smsField`, when
 * that option is set and the record holds a valid number there.
 */
function smsPhoneOf(c: Collection, record: RecordData): string | undefined {
  const field = c.authOptions?.otp.smsField
  if (!field) return undefined
  const phone = record[field]
  return typeof phone === 'string' && /^\+[1-9]\d{1,14}$/.test(phone) ? phone : undefined
}

/** The text of an OTP SMS. */
const otpSmsText = (app: App, password: string): string =>
  `${app.settings.get().meta.appName}: your one-time password is ${password}`

/**
 * `request-otp`: creates a one-time password of `otp.length` digits (stored bcrypt-hashed in
 * `_otps`) and sends it: by SMS (the `sms` service, `onSmsSend`) when the collection's
 * `otp.smsField` names a field holding the record's E.164 number and the sms feature is on,
 * else by mail. Unknown emails get a fake id, so the answer reveals nothing.
 */
export async function requestOtp(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
): Promise<{ otpId: string }> {
  requireOtp(c)
  const email = requireEmail(body)
  const record = await findByEmail(app, c, email)
  if (!record) return { otpId: newId() }
  const otps = app.collections.get('_otps')
  const o = c.authOptions!.otp
  const live = await app.db.all<{ id: string; created: string }>(
    sql`SELECT id, created FROM _otps WHERE "collectionRef" = ${c.id} AND "recordRef" = ${String(record.id)} ORDER BY created DESC`,
  )
  const fresh = live.filter((r) => !isExpired(r.created, o.duration))
  if (fresh.length > 9) return { otpId: fresh[0]!.id }
  const password = randomString(Math.max(4, o.length), '0123456789')
  const phone = smsPhoneOf(c, record)
  const sms = phone === undefined ? undefined : smsSender(app)
  // `sentTo` is where the code goes, stored with it: whoever presents the code received it
  // there, however soon after the send (an OTP that fails to go out is deleted). An SMS code
  // proves the phone, not the email: sentTo is the number, so no verification.
  const sentTo = sms && phone !== undefined ? phone : String(record.email)
  const created = await app.records.create(
    otps,
    { collectionRef: c.id, recordRef: record.id, password, sentTo },
    systemRequest(app),
  )
  const otpId = String(created.id)
  const delivery =
    sms && phone !== undefined
      ? sms.send({ to: phone, body: otpSmsText(app, password) })
      : sendRecordEmail(app, c, record, 'otp', { OTP: password, OTP_ID: otpId })
  delivery.catch(async (err: unknown) => {
    app.logger.error(`failed to send the OTP ${sms ? 'SMS' : 'email'}`, { error: String(err) })
    await app.records.delete(otps, otpId, systemRequest(app)).catch(() => undefined)
  })
  return { otpId }
}

/**
 * `auth-with-otp`: checks the attempt limit first, then the OTP; on success the OTP is
 * deleted and an unverified record whose email received it becomes verified.
 */
export async function verifyOtp(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
  ip: string,
  attempts: OtpAttempts,
): Promise<RecordData> {
  requireOtp(c)
  const errors: ValidationErrors = {}
  const otpId = requiredText(body, 'otpId', 255, errors)
  const password = requiredText(body, 'password', 71, errors)
  if (Object.keys(errors).length > 0) throw badRequest(messages.validationFailed, errors)
  const invalid = (): ApiError => badRequest(messages.otpInvalid)
  const otps = app.collections.get('_otps')
  const otp = await app.records.findById(otps, otpId)
  if (!otp || otp.collectionRef !== c.id) throw invalid()
  if (!attempts.hit(String(otp.recordRef), ip)) {
    throw new ApiError(429, messages.otpTooManyAttempts)
  }
  if (isExpired(otp.created, c.authOptions!.otp.duration)) throw invalid()
  const record = await app.records.findById(c, String(otp.recordRef))
  if (!record || !(await verifyPassword(password, String(otp.password)))) throw invalid()
  const su = systemRequest(app)
  await app.records.delete(otps, otpId, su)
  if (record.verified !== true && otp.sentTo !== '' && otp.sentTo === record.email) {
    const patch: Record<string, unknown> = { verified: true }
    if (!c.authOptions!.mfa.enabled) {
      // NB: a pre-registered password must not survive proving the email (account pre-hijacking).
      const pw = randomString(30)
      Object.assign(patch, { password: pw, passwordConfirm: pw })
    }
    await app.records.update(c, String(record.id), patch, su)
    return (await app.records.findById(c, String(record.id))) ?? record
  }
  return record
}
