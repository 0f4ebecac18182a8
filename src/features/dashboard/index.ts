import type { Feature } from '../../http/feature.js'
import { registerDashboard } from './routes/dashboard.js'
import { defaultUiDir, UiFiles } from './service.js'

/** What the dashboard feature tells the others. */
export interface DashboardService {
  /** True when the dashboard's build is there (so links to `/_/` lead somewhere). */
  built(): boolean
}

declare module '../../core/services.js' {
  interface AppServices {
    /** The admin dashboard at `/_/` (set by `features/dashboard`). */
    dashboard: DashboardService
  }
}

/**
 * The admin dashboard (docs/dashboard.md): the single-page app of `ui/`, built by Vite into
 * `dist/ui`, served at `/_/`. It talks to the API like any client; this feature only serves its
 * files (and the public branding its e-mail pages show).
 */
export function dashboardFeature(): Feature {
  return {
    name: 'dashboard',
    register: ({ app, http }) => {
      const files = new UiFiles(app.config.dashboardDir ?? defaultUiDir())
      app.services.set('dashboard', { built: () => files.built })
      registerDashboard(app, http, files)
    },
  }
}
