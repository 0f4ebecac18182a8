import type { Feature } from '../../http/feature.js'
import { registerApiKeys } from './routes/api-keys.js'

/** The API keys feature: `POST /api/api-keys` mints a key for the authenticated record. */
export function apiKeysFeature(): Feature {
  return {
    name: 'api-keys',
    register: ({ app, http }) => registerApiKeys(app, http),
  }
}
