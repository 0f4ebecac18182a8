import type { Feature } from '../../http/feature.js'
import { registerHealth } from './routes/health.js'

/** The health feature: `GET /api/health`. */
export function healthFeature(): Feature {
  return {
    name: 'health',
    register: ({ app, http }) => registerHealth(app, http),
  }
}
