import type { FastifyInstance } from 'fastify'
import type { Metrics } from '../service.js'

/** The path of the exposition, outside `/api` (SPEC §4.16). */
export const METRICS_PATH = '/metrics'

/** `GET /metrics`: unauthenticated, the Prometheus text exposition of the app's metrics. */
export function registerMetricsRoute(http: FastifyInstance, metrics: Metrics): void {
  http.get(METRICS_PATH, async (_req, reply) => {
    const body = await metrics.registry.metrics()
    return reply.type(metrics.registry.contentType).send(body)
  })
}
