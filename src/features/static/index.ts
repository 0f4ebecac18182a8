import type { Feature } from '../../http/feature.js'
import { registerStatic } from './routes/static.js'

/**
 * Static hosting (docs/static.md): the app's `publicDir` served at `/`, below every route and
 * never under `/api` or `/_/`, with the SPA `index.html` fallback (`indexFallback`, default on).
 * Without `publicDir` the feature serves nothing.
 */
export function staticFeature(): Feature {
  return {
    name: 'static',
    register: ({ app, http }) => {
      const root = app.config.publicDir
      if (root === undefined) return
      registerStatic(http, { root, indexFallback: app.config.indexFallback ?? true })
    },
  }
}
