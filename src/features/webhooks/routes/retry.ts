import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { notFound } from '../../../core/errors.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { sql } from '../../../store/sql.js'
import { formatDate } from '../../../tools/dates.js'
import { NEXT_AT } from '../columns.js'

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
      const { id } = req.params
      const now = formatDate(new Date())
      const found = await app.runInTransaction(async (tx) => {
        const row = await tx.db.get<{ id: string }>(
          sql`SELECT id FROM _webhook_outbox WHERE id = ${id}`,
        )
        if (!row) return false
        await tx.db.run(
          sql`UPDATE _webhook_outbox SET ${NEXT_AT} = ${now} WHERE id = ${id} AND ${NEXT_AT} > ${now}`,
        )
        return true
      })
      if (!found) throw notFound()
      app.services.get('webhooks').wake()
      return reply.code(204).send()
    },
  )
}
