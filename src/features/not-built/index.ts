import type { Feature } from '../../http/feature.js'
import { registerNotBuilt } from './routes/not-built.js'

export { NOT_BUILT } from './routes/not-built.js'

/**
 * The not-built feature: every path of a feature that is not built yet answers 501 with a
 * message naming it (README "Not built yet"), instead of the 404 of an unknown path.
 */
export function notBuiltFeature(): Feature {
  return {
    name: 'not-built',
    register: ({ http }) => registerNotBuilt(http),
  }
}
