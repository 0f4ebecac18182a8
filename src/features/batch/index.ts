import type { Feature } from '../../http/feature.js'
import { addBatchHooks } from './hooks.js'
import { batchRoute } from './routes/batch.js'

/**
 * The batch feature (reference §3): `POST /api/batch` runs record creates, updates, upserts
 * and deletes in one transaction through the record service. Off until `settings.batch.enabled`.
 * Its hook family `onBatchRequest` is declared in `hooks.ts`.
 */
export function batchFeature(): Feature {
  return {
    name: 'batch',
    register: ({ app, http }) => {
      addBatchHooks(app)
      batchRoute(app, http)
    },
  }
}
