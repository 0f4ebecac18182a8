import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { notFound } from '../../../core/errors.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { retryDelivery } from '../service.js'

/**
 * `POST /api/webhooks/deliveries/{id}/retry` (superuser): a pending delivery (a
 * `_webhook_outbox` row waiting for its next attempt after a failure) is attempted now instead
 * of after its backoff → 204. The attempt counts like any other (same body and `webhook-id`).
 * A delivery that is already due or being sent is left as it is (204 too); an unknown id is a
 * 404 (a delivery that succeeded or was given up is no longer in the outbox).
 */
export function registerWebhookRetry(app: App, http: FastifyInstance): void {
  http.post<{ Params: { id: string } }>(
    '/api/webhooks/deliveries/:id/retry',
    async (req, reply) => {
      requireSuperuser(requestInfo(req))
      const found = await retryDelivery(app, req.params.id)
      if (!found) throw notFound()
      app.services.get('webhooks').wake()
      return reply.code(204).send()
    },
  )
}
