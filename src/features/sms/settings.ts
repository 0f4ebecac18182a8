import { badFormat, isUrl, notUrl, objectGroup } from '../../core/settings/index.js'

/** `sms`: a Twilio-style SMS API; while disabled messages go to the log backend. */
export type SmsSettings = {
  enabled: boolean
  accountSid: string
  /** Write-only. */
  authToken: string
  /** The sender, in E.164 form. */
  fromNumber: string
  /** The provider's base URL (DECISIONS "Service endpoints"): Twilio, a compatible one, a test double. */
  apiUrl: string
}

declare module '../../core/settings/registry.js' {
  interface Settings {
    sms: SmsSettings
  }
}

/**
 * The `sms` group: every key required while enabled, an E.164 sender, an http(s) `apiUrl`;
 * `authToken` is write-only.
 */
export const smsSettings = objectGroup<SmsSettings>({
  key: 'sms',
  secrets: ['authToken'],
  defaults: () => ({
    enabled: false,
    accountSid: '',
    authToken: '',
    fromNumber: '',
    apiUrl: 'https://api.twilio.com',
  }),
  check(g) {
    const on = g.boolean('enabled')
    g.requiredString('accountSid', on)
    g.requiredString('authToken', on)
    const from = g.requiredString('fromNumber', on)
    if (from !== undefined && !/^\+[1-9]\d{1,14}$/.test(from))
      g.fail('fromNumber', badFormat('validation_match_invalid:phone'))
    const url = g.requiredString('apiUrl', on)
    if (url !== undefined && !isUrl(url)) g.fail('apiUrl', notUrl())
  },
})
