/* eslint-disable */
// PocketBase JSVM globals ($mails, MailerMessage, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// $mails, new MailerMessage + $app.newMailClient().send, onMailerSend, onMailerRecord…Send.

routerAdd('POST', '/mails/{kind}/{email}', (e) => {
  const k = e.request.pathValue('kind')
  const r = $app.findAuthRecordByEmail('users', e.request.pathValue('email'))
  if (k === 'reset') $mails.sendRecordPasswordReset($app, r)
  if (k === 'verify') $mails.sendRecordVerification($app, r)
  if (k === 'change') $mails.sendRecordChangeEmail($app, r, 'new@example.com')
  if (k === 'otp') $mails.sendRecordOTP($app, r, 'otpid0123456789', '123456')
  if (k === 'alert') $mails.sendRecordAuthAlert($app, r, 'some info')
  return e.json(200, { kind: k })
})

routerAdd('POST', '/mails/message', (e) => {
  const message = new MailerMessage({
    from: { address: 'app@example.com', name: 'App' },
    to: [{ address: 'x@example.com', name: 'X' }],
    subject: 'Hand made',
    html: '<p>hand made</p>',
  })
  $app.newMailClient().send(message)
  return e.json(200, { sent: true, bcc: message.bcc, subject: message.subject })
})

onMailerSend((e) => {
  e.message.subject = '[hooked] ' + e.message.subject
  if (e.message.to[0].address === 'skip@example.com') return
  e.next()
})

onMailerRecordPasswordResetSend((e) => {
  e.message.subject += ' (' + e.record.get('email') + ', ' + typeof e.meta.token + ')'
  e.next()
}, 'users')

onMailerRecordVerificationSend((e) => {
  if (e.record.get('email') === 'noverify@example.com') return
  e.next()
})

onMailerRecordEmailChangeSend((e) => {
  e.message.subject += ' [' + e.meta.newEmail + ', ' + typeof e.meta.token + ']'
  e.next()
})

onMailerRecordOTPSend((e) => {
  e.message.subject += ' [' + e.meta.otpId + ', ' + e.meta.password + ']'
  e.next()
})

onMailerRecordAuthAlertSend((e) => {
  e.message.subject += ' [' + e.meta.info + ', ' + e.record.collection().name + ']'
  e.next()
})
