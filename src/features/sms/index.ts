import type { Feature } from '../../http/feature.js'
import { registerTestSms } from './routes/test-sms.js'
import { SmsService } from './service.js'
import { smsSettings } from './settings.js'

/**
 * SMS: declares the `sms` settings group, offers the `sms` service (`send({to, body})`:
 * Twilio-style REST while `settings.sms.enabled`, the log backend otherwise, `onSmsSend` around
 * both) and serves `POST /api/settings/test/sms`. The OTP flow of auth collections whose
 * `authOptions.otp.smsField` names a phone field sends its codes through the service.
 */
export function smsFeature(): Feature {
  return {
    name: 'sms',
    register: ({ app, http }) => {
      app.registerSettingsGroup(smsSettings)
      app.services.set('sms', new SmsService(app))
      registerTestSms(app, http)
    },
  }
}
