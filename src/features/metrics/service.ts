import { Counter, Histogram, Registry } from 'prom-client'

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
