import type { FastifyRequest } from 'fastify'
import type { App } from '../../core/app.js'
import { SUPERUSERS } from '../../core/request-info.js'
import { routeUrl } from '../../http/request-info.js'
import type { RateLimitRequest } from './limiter.js'

/** The decoded path of a request URL, without its query string. */
export function urlPath(url: string): string {
  const path = url.split('?', 1)[0] ?? ''
  try {
    // Decoded as the router does, so `/api/%62atch` meets the `/api/batch` rule.
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/** The limiter's view of a Fastify request (route tags, collection, auth, client IP). */
export function limiterRequest(app: App, req: FastifyRequest, path: string): RateLimitRequest {
  const route = routeUrl(req) || null
  const tags = req.routeOptions.config.rateLimitTags ?? []
  const param = (req.params as Record<string, unknown> | undefined)?.collection
  const collection =
    route?.includes(':collection') && typeof param === 'string'
      ? (app.collections.find(param) ?? null)
      : null
  return {
    method: req.method.toUpperCase(),
    path,
    collection: collection?.name ?? null,
    collectionId: collection?.id ?? null,
    tags,
    route,
    authenticated: req.svcAuth !== null,
    superuser: req.svcAuth?.collection.name === SUPERUSERS,
    ip: req.svcIp,
  }
}
