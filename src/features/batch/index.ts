import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { batchRoute } from './routes/batch.js'

/**
 * The batch feature (reference §3): `POST /api/batch` runs record creates, updates, upserts
 * and deletes in one transaction through the record service. Off until `settings.batch.enabled`.
 */
export function register(app: App, http: FastifyInstance): void {
  batchRoute(app, http)
}
