import { randomString } from '../../tools/ids.js'
import type { Feature } from '../../http/feature.js'
import { registerSetup } from './routes/setup.js'

/** What the setup feature offers: the one-time setup token of this server. */
export interface SetupService {
  /** Valid while no superuser exists; `serve` prints it. */
  readonly token: string
}

declare module '../../core/services.js' {
  interface AppServices {
    /** The first-run setup (set by `features/setup`). */
    setup: SetupService
  }
}

/**
 * The setup feature: `GET /api/setup/status` and `POST /api/setup`, with a fresh one-time setup
 * token offered as the `setup` service.
 */
export function setupFeature(): Feature {
  return {
    name: 'setup',
    register: ({ app, http }) => {
      // NB: the workers of `serve --workers` share the token their primary made.
      const shared = process.env.SVC_SETUP_TOKEN
      const token = shared && shared.length >= 32 ? shared : randomString(32)
      app.services.set('setup', { token })
      registerSetup(app, http, token)
    },
  }
}
