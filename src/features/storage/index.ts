import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { registerObjects } from './objects.js'
import { registerTestS3 } from './test-s3.js'

export { MAX_KEY_LENGTH, MAX_UPLOAD_BYTES, validateObjectKey } from './objects.js'
export { PROBE_TIMEOUT_MS } from './test-s3.js'

/**
 * The storage feature: the object browser of SPEC §4.15 under `/api/storage/objects` and the S3
 * round-trip test `POST /api/settings/test/s3` (SPEC §4.7), all superuser only.
 */
export function register(app: App, http: FastifyInstance): void {
  registerObjects(app, http)
  registerTestS3(app, http)
}
