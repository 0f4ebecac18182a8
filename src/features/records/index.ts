import type { Feature } from '../../http/feature.js'
import { registerRecords } from './routes/records.js'

/** The records feature: the records API of SPEC §4.2 over the core record service. */
export function recordsFeature(): Feature {
  return {
    name: 'records',
    register: ({ app, http }) => registerRecords(app, http),
  }
}
