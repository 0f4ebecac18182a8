import type { Collection } from './collections/model.js'
import type { RequestEvent } from './request-event.js'
import type { RecordData } from './request-info.js'

/**
 * The event of `onRecordAuthRequest`: every successful sign-in answer (password, OTP, refresh,
 * impersonation), after the auth rule and MFA passed. The built-in action answers
 * `{token, record, meta?}` with `e.token` and `e.record` as they are then (a handler may replace
 * the token or add `meta`); the auth-alert mail goes out in it too.
 */
export interface RecordAuthRequestEvent extends RequestEvent {
  collection: Collection
  record: RecordData
  token: string
  meta: Record<string, unknown> | null
  /** `password`, `otp`, or `''` for a refresh or an impersonation. */
  authMethod: string
}

/**
 * The event of `onRecordAuthWithPasswordRequest`: fired once the body is valid and the identity
 * looked up; `record` is null when no record has it. The built-in action checks `e.password`
 * against `e.record` (400 `Failed to authenticate.`), then runs the auth rule, MFA and
 * `onRecordAuthRequest`.
 */
export interface RecordAuthWithPasswordRequestEvent extends RequestEvent {
  collection: Collection
  record: RecordData | null
  identity: string
  identityField: string
  password: string
}

/**
 * The event of `onRecordAuthWithOTPRequest`: fired once the OTP is verified (and spent);
 * `otp` is the `_otps` record it was. The built-in action runs the auth rule, MFA and
 * `onRecordAuthRequest`.
 */
export interface RecordAuthWithOTPRequestEvent extends RequestEvent {
  collection: Collection
  record: RecordData
  otp: RecordData | null
}

/**
 * The event of the auth flows on one record: `onRecordAuthRefreshRequest` (the signed-in
 * record), `onRecordRequestOTPRequest` (the record of the email, or null: the action then
 * answers a fake id), `onRecordRequestPasswordResetRequest` and
 * `onRecordRequestVerificationRequest` (fired only when a record has the email),
 * `onRecordConfirmPasswordResetRequest` and `onRecordConfirmVerificationRequest` (the record of
 * a valid token). The built-in action runs the flow; skipping `e.next()` skips it.
 */
export interface RecordAuthFlowRequestEvent extends RequestEvent {
  collection: Collection
  record: RecordData | null
}

/**
 * The event of `onRecordRequestEmailChangeRequest` (the signed-in record and the submitted
 * `newEmail`, which a handler may change) and `onRecordConfirmEmailChangeRequest` (the record
 * and new email of a valid token).
 */
export interface RecordEmailChangeRequestEvent extends RequestEvent {
  collection: Collection
  record: RecordData
  newEmail: string
}
