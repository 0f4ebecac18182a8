import type { Feature } from '../../http/feature.js'
import { addSettingsHooks } from './hooks.js'
import { registerSettingsSecrets } from './routes/secrets.js'
import { registerSettings } from './routes/settings.js'

/**
 * The settings feature: `GET` and `PATCH /api/settings` (superuser, SPEC §4.7), with the hook
 * families `onSettingsListRequest`, `onSettingsUpdateRequest` and `onSettingsReload` (`hooks.ts`).
 */
export function settingsFeature(): Feature {
  return {
    name: 'settings',
    register: ({ app, http }) => {
      addSettingsHooks(app)
      registerSettings(app, http)
      registerSettingsSecrets(app, http)
    },
  }
}
