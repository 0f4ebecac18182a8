import type { Feature } from '../../http/feature.js'
import { pushSettings } from './settings.js'

/**
 * Push notifications (not built yet: its endpoints answer 501 from `not-built`). Declares the
 * `push` settings group, so that its backends and triggers can be configured ahead of time.
 */
export function pushFeature(): Feature {
  return {
    name: 'push',
    register: ({ app }) => app.registerSettingsGroup(pushSettings),
  }
}
