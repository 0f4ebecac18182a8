/* eslint-disable */
// PocketBase JSVM globals (the auth request hooks): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// The confirm hooks of the auth flows that need a token or an OTP from an earlier answer:
// onRecordConfirmPasswordResetRequest, onRecordConfirmVerificationRequest,
// onRecordConfirmEmailChangeRequest and onRecordAuthWithOTPRequest. A user named "answer" is
// answered by the hook (the flow does not happen), "block" is refused, any other goes on.

onRecordConfirmPasswordResetRequest((e) => {
  const name = e.record.get('name')
  if (name === 'block') throw new BadRequestError('reset blocked for ' + e.record.email())
  if (name === 'answer')
    return e.json(200, {
      hook: 'confirmPasswordReset',
      collection: e.collection.name,
      email: e.record.email(),
      verified: e.record.verified(),
      auth: e.auth === null || e.auth === undefined,
    })
  e.next()
}, 'users')

onRecordConfirmVerificationRequest((e) => {
  const name = e.record.get('name')
  if (name === 'block') throw new BadRequestError('verification blocked')
  if (name === 'answer')
    return e.json(200, {
      hook: 'confirmVerification',
      collection: e.collection.name,
      email: e.record.email(),
      verified: e.record.verified(),
    })
  e.next()
}, 'users')

onRecordConfirmEmailChangeRequest((e) => {
  const name = e.record.get('name')
  if (name === 'block') throw new BadRequestError('email change blocked')
  if (name === 'answer')
    return e.json(200, {
      hook: 'confirmEmailChange',
      collection: e.collection.name,
      email: e.record.email(),
      newEmail: e.newEmail,
    })
  e.next()
}, 'users')

onRecordAuthWithOTPRequest((e) => {
  const name = e.record.get('name')
  if (name === 'block') throw new BadRequestError('otp blocked')
  if (name === 'answer')
    return e.json(200, {
      hook: 'authWithOTP',
      collection: e.collection.name,
      email: e.record.email(),
      otpRecord: e.otp.get('recordRef') === e.record.id,
      otpCollection: e.otp.get('collectionRef') === e.collection.id,
    })
  e.next()
}, 'users')
