import type { Feature } from '../../http/feature.js'
import { registerDashboard } from './routes/dashboard.js'
import { defaultUiDir, UiFiles } from './service.js'

/**
 * The admin dashboard (docs/dashboard.md): the single-page app of `ui/`, built by Vite into
 * `dist/ui`, served at `/_/`. It talks to the API like any client; this feature only serves its
 * files (and the public branding its e-mail pages show).
 */
export function dashboardFeature(): Feature {
  return {
    name: 'dashboard',
    register: ({ app, http }) => {
      registerDashboard(app, http, new UiFiles(app.config.dashboardDir ?? defaultUiDir()))
    },
  }
}
