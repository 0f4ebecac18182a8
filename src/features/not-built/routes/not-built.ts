import type { FastifyInstance } from 'fastify'
import { ApiError, messages } from '../../../core/errors.js'

/** A feature of SPEC.md (or PocketBase) that is not built yet, and the paths it will own. */
interface Missing {
  feature: string
  paths: string[]
}

/**
 * What is not built yet (README "Not built yet"). Each issue that builds one removes its entry,
 * so the table shrinks to nothing.
 */
export const NOT_BUILT: readonly Missing[] = []

/**
 * Answers every path of a feature that is not built yet with 501 and a message naming it, instead
 * of the 404 any unknown path gets, so a client (or a PocketBase app) learns what is missing.
 */
export function registerNotBuilt(http: FastifyInstance): void {
  for (const { feature, paths } of NOT_BUILT) {
    const error = new ApiError(501, messages.notBuilt({ feature }))
    for (const url of paths) {
      http.all(url, async () => {
        throw error
      })
    }
  }
}
