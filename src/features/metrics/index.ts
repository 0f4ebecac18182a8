import type { Feature } from '../../http/feature.js'
import { routeUrl } from '../../http/request-info.js'
import { METRICS_PATH, registerMetricsRoute } from './routes/metrics.js'
import { createMetrics } from './service.js'

export { METRICS_PATH } from './routes/metrics.js'
export { createMetrics, type Metrics } from './service.js'

/**
 * The metrics feature: `GET /metrics` and an `onResponse` hook recording every answered request
 * except the scrapes of `/metrics` itself, so that a scraper does not inflate the traffic it
 * measures. The metrics are the app's `metrics` service.
 */
export function metricsFeature(): Feature {
  return {
    name: 'metrics',
    register: ({ app, http }) => {
      const metrics = createMetrics()
      app.services.set('metrics', metrics)
      http.addHook('onResponse', (req, reply, done) => {
        if (routeUrl(req) !== METRICS_PATH) {
          const status = reply.statusCode
          metrics.requests.inc({ method: req.method, status: String(status) })
          metrics.duration.observe(reply.elapsedTime / 1000)
          if (status >= 400) metrics.errors.inc()
        }
        done()
      })
      registerMetricsRoute(http, metrics)
    },
  }
}
