import type { Feature } from '../../http/feature.js'
import { batchRoute } from './routes/batch.js'

/**
 * The batch feature (reference §3): `POST /api/batch` runs record creates, updates, upserts
 * and deletes in one transaction through the record service. Off until `settings.batch.enabled`.
 */
export function batchFeature(): Feature {
  return {
    name: 'batch',
    register: ({ app, http }) => batchRoute(app, http),
  }
}
