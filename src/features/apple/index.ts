import type { Feature } from '../../http/feature.js'
import { registerClientSecret } from './routes/client-secret.js'

/**
 * The Sign in with Apple helper: `POST /api/settings/apple/generate-client-secret` signs a
 * client secret from a team's key (superuser).
 */
export function appleFeature(): Feature {
  return {
    name: 'apple',
    register: ({ http }) => registerClientSecret(http),
  }
}
