import type { Feature } from '../../http/feature.js'
import { registerCheckFilter } from './routes/check-filter.js'
import { registerCollections } from './routes/collections.js'
import { registerDryRunView } from './routes/dry-run-view.js'
import { registerImport } from './routes/import.js'
import { registerScaffolds } from './routes/scaffolds.js'
import { registerTypes } from './routes/types.js'

/**
 * The collections feature: the collections API of SPEC §4.1 (superuser only), a thin layer over
 * the core collection service and its request hooks.
 */
export function collectionsFeature(): Feature {
  return {
    name: 'collections',
    register: ({ app, http }) => {
      registerCollections(app, http)
      registerScaffolds(http)
      registerDryRunView(app, http)
      registerTypes(app, http)
      registerImport(app, http)
      registerCheckFilter(app, http)
    },
  }
}
