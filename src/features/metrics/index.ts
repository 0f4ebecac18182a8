import type { FastifyInstance } from 'fastify'
import { Counter, Histogram, Registry } from 'prom-client'
import type { App } from '../../core/app.js'

/** The path of the exposition, outside `/api` (SPEC §4.16). */
export const METRICS_PATH = '/metrics'

/** The metrics of one app, in a registry of its own (never prom-client's global one). */
export interface Metrics {
  readonly registry: Registry
  readonly requests: Counter<'method' | 'status'>
  readonly duration: Histogram
  readonly errors: Counter
}

declare module '../../core/services.js' {
  interface AppServices {
    /** The HTTP metrics of this app (set by `features/metrics`). */
    metrics: Metrics
  }
}

/** Creates the three HTTP metrics of SPEC §4.16 in a fresh registry. */
export function createMetrics(): Metrics {
  const registry = new Registry()
  return {
    registry,
    requests: new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests answered, by method and status code.',
      labelNames: ['method', 'status'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time from receiving an HTTP request to sending its response, in seconds.',
      registers: [registry],
    }),
    errors: new Counter({
      name: 'svc_http_errors_total',
      help: 'HTTP requests answered with a 4xx or 5xx status.',
      registers: [registry],
    }),
  }
}

/**
 * Registers `GET /metrics` (unauthenticated, Prometheus text exposition) and an `onResponse`
 * hook recording every answered request except the scrapes of `/metrics` itself, so that a
 * scraper does not inflate the traffic it measures. The metrics are the app's `metrics` service.
 */
export function register(app: App, http: FastifyInstance): Metrics {
  const metrics = createMetrics()
  app.services.set('metrics', metrics)
  http.addHook('onResponse', (req, reply, done) => {
    if (req.routeOptions.url !== METRICS_PATH) {
      const status = reply.statusCode
      metrics.requests.inc({ method: req.method, status: String(status) })
      metrics.duration.observe(reply.elapsedTime / 1000)
      if (status >= 400) metrics.errors.inc()
    }
    done()
  })
  http.get(METRICS_PATH, async (_req, reply) => {
    const body = await metrics.registry.metrics()
    return reply.type(metrics.registry.contentType).send(body)
  })
  return metrics
}
