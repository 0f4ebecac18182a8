import type { Feature } from '../../http/feature.js'
import { registerApply } from './routes/apply.js'

/**
 * Schema apply (SPEC §4.8): `POST /api/schema/apply`, superuser only. The engine is
 * `core/collections/apply.ts`, shared with `svcbase schema` and `serve --automigrate`.
 */
export function schemaFeature(): Feature {
  return {
    name: 'schema',
    register: ({ app, http }) => {
      registerApply(app, http)
    },
  }
}
