import type { Feature } from '../../http/feature.js'
import { smsSettings } from './settings.js'

/**
 * SMS (not built yet: its endpoints answer 501 from `not-built`). Declares the `sms` settings
 * group, so that the SMS API can be configured ahead of time.
 */
export function smsFeature(): Feature {
  return {
    name: 'sms',
    register: ({ app }) => app.registerSettingsGroup(smsSettings),
  }
}
