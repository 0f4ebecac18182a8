/**
 * Validation of an auth collection's options, with PocketBase's codes and paths: token and OTP
 * durations (`Cannot be blank.` for 0, then its bounds), the MFA rule and duration, identity
 * fields, the rules of `authRule`/`manageRule`.
 */
import type { Dialect } from '../../store/dialect.js'
import { type FieldError, validationError, type ValidationErrors } from '../errors.js'
import type { FieldLookup } from '../fields/field-type.js'
import { validateRule } from '../rules/index.js'
import { hasUniqueIndexOn } from './index-text.js'
import type { Collection } from './model.js'

const tokenKeys = [
  'authToken',
  'passwordResetToken',
  'emailChangeToken',
  'verificationToken',
  'fileToken',
] as const

/** A number option required (0 is blank) within `min`..`max`, as ozzo's Required, Min, Max. */
function boundedError(v: unknown, min: number, max: number): FieldError | undefined {
  if (v === 0 || v === null || v === undefined) return validationError('validation_required')
  if (typeof v !== 'number' || !Number.isInteger(v))
    return validationError('validation_invalid_value:integer')
  if (v < min)
    return validationError('validation_min_greater_equal_than_required', { threshold: min })
  if (v > max) return validationError('validation_max_less_equal_than_required', { threshold: max })
  return undefined
}

/** Validates `c.authOptions` into `errors.authOptions` (see the module comment). */
export function validateAuthOptions(
  c: Collection,
  lookup: FieldLookup,
  dialect: Dialect,
  errors: ValidationErrors,
): void {
  const o = c.authOptions!
  const e: ValidationErrors = {}
  const ruleError = (rule: string | null): FieldError | undefined => {
    if (rule === null || rule.trim() === '') return undefined
    const problem = validateRule(rule, c, (n) => lookup.findCollection(n), dialect)
    return problem ? validationError('validation_invalid_rule', { problem }) : undefined
  }
  if (o.manageRule !== null && o.manageRule.trim() === '') {
    e.manageRule = validationError('validation_nil_or_not_empty_required')
  }
  for (const key of ['authRule', 'manageRule'] as const) {
    const err = ruleError(o[key])
    if (err) e[key] = err
  }
  for (const key of tokenKeys) {
    const tokenErrors: ValidationErrors = {}
    const duration = boundedError(o[key].duration, 10, 94670856)
    if (duration) tokenErrors.duration = duration
    // PocketBase's bounds: a secret set through the API is 30 to 255 characters.
    const secret: unknown = o[key].secret
    if (typeof secret !== 'string') {
      tokenErrors.secret = validationError('validation_invalid_value:string')
    } else if ([...secret].length < 30 || [...secret].length > 255) {
      tokenErrors.secret = validationError('validation_length_out_of_range', { min: 30, max: 255 })
    }
    if (Object.keys(tokenErrors).length > 0) e[key] = tokenErrors
  }
  const identity = identityFieldsError(c)
  if (identity) e.passwordAuth = { identityFields: identity }
  const otp: ValidationErrors = {}
  if (o.otp.enabled) {
    const duration = boundedError(o.otp.duration, 10, 86400)
    if (duration) otp.duration = duration
    const length = boundedError(o.otp.length, 4, 255)
    if (length) otp.length = length
  }
  const smsField: unknown = o.otp.smsField
  if (
    smsField !== undefined &&
    smsField !== null &&
    smsField !== '' &&
    !c.fields.some((f) => f.name === smsField && f.type === 'text')
  ) {
    otp.smsField = validationError('validation_in_invalid:sms_field')
  }
  if (Object.keys(otp).length > 0) e.otp = otp
  const mfa: ValidationErrors = {}
  if (o.mfa.enabled) {
    // As PocketBase, the rule of a disabled MFA is not checked.
    const mfaRule = ruleError(o.mfa.rule)
    if (mfaRule) mfa.rule = mfaRule
    const duration = boundedError(o.mfa.duration, 10, 86400)
    if (duration) mfa.duration = duration
    const methods = [o.passwordAuth.enabled, o.otp.enabled, o.oauth2.enabled].filter(Boolean).length
    if (methods < 2) mfa.enabled = validationError('validation_mfa_not_enough_auths')
  }
  if (Object.keys(mfa).length > 0) e.mfa = mfa
  if (Object.keys(e).length > 0) errors.authOptions = e
}

/**
 * PocketBase's checks of `passwordAuth.identityFields`: not empty while password auth is on,
 * each an existing field with a unique index on it alone (or svcbase's `unique` flag).
 */
function identityFieldsError(c: Collection): FieldError | undefined {
  const { enabled, identityFields: ids } = c.authOptions!.passwordAuth
  if (!Array.isArray(ids) || ids.some((n) => typeof n !== 'string'))
    return validationError('validation_in_invalid:identity_fields')
  if (enabled && ids.length === 0) return validationError('validation_required')
  for (const fieldName of ids) {
    const f = c.fields.find((x) => x.name === fieldName)
    if (!f) return validationError('validation_missing_field', { fieldName })
    if (!f.unique && !hasUniqueIndexOn(c, fieldName))
      return validationError('validation_missing_unique_constraint', { fieldName })
  }
  return undefined
}
