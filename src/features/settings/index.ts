import type { Feature } from '../../http/feature.js'
import { registerSettingsSecrets } from './routes/secrets.js'
import { registerSettings } from './routes/settings.js'

/** The settings feature: `GET` and `PATCH /api/settings` (superuser, SPEC §4.7). */
export function settingsFeature(): Feature {
  return {
    name: 'settings',
    register: ({ app, http }) => {
      registerSettings(app, http)
      registerSettingsSecrets(app, http)
    },
  }
}
