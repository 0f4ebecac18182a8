/** Reading the auth options of a collection input: nested in `authOptions` or at the top level. */
import { type FieldError, validationError, type ValidationErrors } from '../errors.js'
import { isObject, pickEdited, sameValue, type InputShape } from './input-views.js'
import { tokenSecret } from './defaults.js'
import type { AuthOptions } from './model.js'

/** PocketBase's top-level auth keys, accepted on input besides `authOptions` (DECISIONS). */
const authOptionKeys = [
  'authRule',
  'manageRule',
  'passwordAuth',
  'mfa',
  'otp',
  'authAlert',
  'oauth2',
  'authToken',
  'passwordResetToken',
  'emailChangeToken',
  'verificationToken',
  'fileToken',
  'verificationTemplate',
  'resetPasswordTemplate',
  'confirmEmailChangeTemplate',
] as const

/**
 * Applies the auth options of `input` on `target`, in place: each key from `authOptions.x` or
 * the top-level `x` (recorded in `shape`), an edit in either applies, different edits in both
 * are an error.
 */
export function applyAuthOptions(
  target: AuthOptions,
  input: Record<string, unknown>,
  errors: ValidationErrors,
  shape: InputShape,
): void {
  let nested: Record<string, unknown> = {}
  if (isObject(input.authOptions)) nested = input.authOptions
  else if (input.authOptions !== undefined) {
    errors.authOptions = validationError('validation_invalid_value:object')
  }
  const t = target as unknown as Record<string, unknown>
  const authRuleBefore = target.authRule
  const nestedErrors: ValidationErrors = {}
  for (const key of authOptionKeys) {
    const views = [
      key in input ? { top: true, ...parseAuthOption(key, t[key], input[key]) } : null,
      key in nested ? { top: false, ...parseAuthOption(key, t[key], nested[key]) } : null,
    ].filter((v) => v !== null)
    if (views.length === 0) continue
    let chosen = views[0]!
    if (views.length === 2) {
      const pick = pickEdited(views[0]!, views[1]!, (v) => sameValue(v, t[key]))
      if (pick === 'conflict') {
        shape.authTopLevel.add(key)
        errors[key] = validationError('validation_conflicting_values:auth', { key })
        continue
      }
      chosen = views[pick === 'a' ? 0 : 1]!
    }
    if (chosen.top) shape.authTopLevel.add(key)
    if (chosen.error) (chosen.top ? errors : nestedErrors)[key] = chosen.error
    else t[key] = chosen.value
  }
  if (Object.keys(nestedErrors).length > 0 && !errors.authOptions) errors.authOptions = nestedErrors
  // As PocketBase 0.40.4: a changed authRule signs out every token the old rule let through (the
  // auth token secret is rotated), so no token outlives the rule it was issued under.
  if (target.authRule !== authRuleBefore) {
    target.authToken = { ...target.authToken, secret: tokenSecret() }
  }
}

/** One auth option as submitted, merged over its current value. */
function parseAuthOption(
  key: string,
  current: unknown,
  v: unknown,
): { value: unknown; failed: boolean; error?: FieldError } {
  if (key === 'authRule' || key === 'manageRule') {
    if (v === null || typeof v === 'string') return { value: v, failed: false }
    return {
      value: null,
      failed: true,
      error: validationError('validation_invalid_value:string_or_null'),
    }
  }
  if (!isObject(v)) {
    return {
      value: null,
      failed: true,
      error: validationError('validation_invalid_value:object'),
    }
  }
  // NB: a token option's `secret` is write-only: absent (as responses show it) keeps the stored
  // one, a new one rotates it (validated in `validate.ts`), which signs out every token of its kind.
  const rest = { ...v }
  if (key === 'oauth2') keepClientSecrets(rest, current)
  return { value: { ...(current as Record<string, unknown>), ...rest }, failed: false }
}

/**
 * OAuth2 client secrets are write-only: a submitted provider without one (as responses show it)
 * keeps the stored one of the same name, so a collection sent back as read is unchanged.
 */
function keepClientSecrets(input: Record<string, unknown>, current: unknown): void {
  const stored = isObject(current) && Array.isArray(current.providers) ? current.providers : []
  if (!Array.isArray(input.providers)) return
  input.providers = input.providers.map((p: unknown) => {
    if (!isObject(p) || (p.clientSecret !== undefined && p.clientSecret !== '')) return p
    const same = stored.find((s: unknown) => isObject(s) && s.name === p.name) as
      Record<string, unknown> | undefined
    return same?.clientSecret ? { ...p, clientSecret: same.clientSecret } : p
  })
}
