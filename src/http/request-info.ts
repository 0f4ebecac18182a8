import type { FastifyRequest } from 'fastify'
import {
  headerKey,
  type AuthInfo,
  type RequestContext,
  type RequestInfo,
} from '../core/request-info.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller resolved from `Authorization` (null for guests). */
    svcAuth: AuthInfo | null
    /** True when `svcAuth` came from an API key rather than an auth token. */
    svcApiKey: boolean
    /** The client IP as decided by `settings.trustedProxy` (reference §10.4). */
    svcIp: string
    /** The matched route's URL pattern, read once (see {@link routeUrl}); null until then. */
    svcRoute: string | null
  }
}

/**
 * The URL pattern of the request's route (`/api/collections/:collection/records`), or '' when
 * no route matched. NB: Fastify's `req.routeOptions` builds a fresh object on every read, and
 * several every-request hooks need the pattern: it is read once per request.
 */
export function routeUrl(req: FastifyRequest): string {
  let url = req.svcRoute
  if (url === null) {
    url = req.routeOptions.url ?? ''
    req.svcRoute = url
  }
  return url
}

/** Builds the RequestInfo of a request once its body is read. */
export function requestInfo(
  req: FastifyRequest,
  body: Record<string, unknown> = {},
  context: RequestContext = 'default',
): RequestInfo {
  const query: Record<string, string> = {}
  for (const [k, v] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    const first: unknown = Array.isArray(v) ? v[0] : v
    query[k] =
      typeof first === 'string'
        ? first
        : first === undefined || first === null
          ? ''
          : JSON.stringify(first)
  }
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue
    headers[headerKey(k)] = Array.isArray(v) ? (v[0] ?? '') : v
  }
  return {
    auth: req.svcAuth,
    query,
    body,
    headers,
    method: req.method,
    context,
    ip: req.svcIp || req.ip,
  }
}
