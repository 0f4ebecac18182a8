/**
 * Top-level messages of authentication: guards, sign-in flows (password, OTP, MFA), token flows,
 * superusers, API keys and setup.
 */
import type { Args, Entry } from './catalogue.js'

/** Messages of the auth APIs. */
export const authMessages = {
  // guards and context
  authTokenRequired: 'The request requires valid record authorization token.',
  authRecordNotAllowed: 'The authorized record is not allowed to perform this action.',
  authCollectionRequired: ({ collection }: Args<'collection'>) =>
    `The request requires auth record from ${collection} collection.` as const,
  invalidCollectionContext: 'Missing or invalid collection context.',
  invalidAuthCollectionContext: 'Missing or invalid auth collection context.',
  // sign-in
  authFailed: 'Failed to authenticate.',
  passwordAuthNotAllowed: 'The collection is not configured to allow password authentication.',
  authRequirementsNotMet:
    "The request doesn't satisfy the collection requirements to authenticate.",
  otpNotAllowed: 'The collection is not configured to allow OTP authentication.',
  otpInvalid: 'Invalid or expired OTP.',
  otpTooManyAttempts: 'Too many attempts, please try again later with a new OTP.',
  mfaSessionExpired: 'Invalid or expired MFA session.',
  mfaSessionInvalid: 'Invalid MFA session.',
  mfaSameMethod: 'A different authentication method is required.',
  // token flows
  superusersVerified: 'All superusers are verified by default.',
  passwordResetFailed: 'Failed to set new password.',
  superusersChangeEmail: 'All superusers can change their emails directly.',
  emailChangeRequestFailed: 'Failed to request email change.',
  // superusers, API keys, setup
  superuserNotFound: ({ email }: Args<'email'>) => `No superuser with email ${email}.` as const,
  superuserExists: ({ email }: Args<'email'>) =>
    `A superuser with email ${email} already exists.` as const,
  lastSuperuser: "You can't delete the only existing superuser.",
  apiKeysCannotMint: 'API keys cannot be used to mint API keys.',
  setupDone: 'Setup is already complete.',
  setupTokenRequired: 'A valid setup token is required for setup from a non-loopback address.',
} as const satisfies Record<string, Entry>
