import cors from '@fastify/cors'
import multipart from '@fastify/multipart'
import { createServer, STATUS_CODES } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import type { App } from '../core/app.js'
import { isApiKey, resolveApiKey } from '../core/auth/api-keys.js'
import { verifyToken } from '../core/auth/tokens.js'
import { ApiError, badRequest, messages } from '../core/errors.js'
import { SUPERUSERS, type AuthInfo } from '../core/request-info.js'
import { DEFAULT_HEADERS_TIMEOUT } from '../core/settings/groups/connections.js'
import { AuthCache } from './auth-cache.js'
import { BODY_LIMIT, parseJsonBody, parseUrlEncoded, registerUploads } from './body.js'
import { clientIp } from './client-ip.js'
import { redirectUncleanPath } from './clean-path.js'
import { ConnectionGuard, connectionPolicy } from './connections.js'
import { errorHandler, notFoundHandler } from './errors.js'
import { SuperuserIpGuard } from './superuser-ips.js'
import { parseQueryString } from './query-string.js'

export { BODY_LIMIT }

/** The largest request head accepted (the URL included), so long filters get a real answer. */
export const MAX_HEADER_SIZE = 2 * 1024 * 1024

/**
 * How long an idle keep-alive connection stays open: Fastify's default, which Fastify does not
 * apply to a server from `serverFactory` (Node's own is 5 s). A client must drop an idle
 * connection before the server does, or a request sent just as the server closes it is reset
 * (ECONNRESET): proxies keep idle connections for up to 60 s, and Node's fetch drops them 2 s
 * before the `Keep-Alive: timeout=72` this announces.
 */
export const KEEP_ALIVE_TIMEOUT = 72_000
/**
 * How often Node checks the header timeout (`connections.headersTimeout`, read by
 * `ConnectionGuard`): its default of 30 s would let a trickling head live that much longer. An
 * idle keep-alive connection is not concerned (its head timer starts with the next request).
 */
const CONNECTIONS_CHECK_MS = 1_000

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Rate-limit tags of a route (`auth`, `create`, `list`, …), matched by `<collection>:<tag>` rules. */
    rateLimitTags?: string[]
  }
}

/** Headers of every response (PocketBase sends the same). */
const SECURITY_HEADERS = {
  'X-XSS-Protection': '1; mode=block',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'SAMEORIGIN',
}

/** Options of the HTTP instance. */
export interface HttpOptions {
  bodyLimit?: number
  /**
   * How long a multipart body may go without a byte arriving before it answers 400, in ms
   * (1 to 600 000; default 10 000, `BODY_TIMEOUT`).
   */
  bodyTimeout?: number
  /** Fastify's own request logging (off by default; svcbase logs requests itself). */
  logger?: boolean
  /** CORS allowed origins (`serve --origins`); absent or containing `*` allows any origin. */
  origins?: string[]
}

/** Reads the token of an `Authorization` header: `Bearer <token>` or the bare token. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null
  const t = header.replace(/^bearer\s+/i, '').trim()
  return t === '' ? null : t
}

/**
 * Resolves a bearer token to its auth record: an API key (`svc_…`) through its hash, anything
 * else as an auth JWT. An invalid, expired or revoked credential yields null (a guest).
 * `recent` is the API keys' `lastUsed` throttle shared across requests.
 */
export async function resolveAuth(
  app: App,
  token: string,
  recent: Map<string, number>,
  cache?: AuthCache,
): Promise<{ auth: AuthInfo | null; apiKey: boolean }> {
  if (isApiKey(token)) {
    const auth = await resolveApiKey(app, token, recent)
    return { auth, apiKey: auth !== null }
  }
  const cached = cache?.get(token)
  if (cached !== undefined) return { auth: cached, apiKey: false }
  const verified = await verifyToken(app, token, ['auth'])
  const exp = typeof verified?.claims.exp === 'number' ? verified.claims.exp : undefined
  cache?.set(
    token,
    verified ? { record: verified.record, collection: verified.collection } : null,
    exp,
  )
  return { auth: verified, apiKey: false }
}

/**
 * Builds the Fastify instance every feature registers on: body parsers and limits, CORS,
 * security headers, the client IP, the superuser IP allow-list, auth resolution (an invalid
 * token means guest), and the error mapper.
 */
export async function createHttp(app: App, options: HttpOptions = {}): Promise<FastifyInstance> {
  const bodyLimit = options.bodyLimit ?? BODY_LIMIT
  const http = Fastify({
    logger: options.logger ?? false,
    bodyLimit,
    trustProxy: false,
    // NB: queries read as Go reads them (`query-string.ts`): a pair that does not decode is left
    // out. A path parameter over Fastify's default 100 characters would match no route; PocketBase
    // routes it (a 300-character id is a record not found, not an unknown route).
    routerOptions: {
      ignoreTrailingSlash: false,
      querystringParser: parseQueryString,
      maxParamLength: 8192,
    },
    // Long query strings (a hostile 1 MB filter) reach the filter parser, which refuses them
    // with a precise 400 at once, instead of Node's bare 431.
    serverFactory: (handler) => {
      const server = createServer(
        { maxHeaderSize: MAX_HEADER_SIZE, connectionsCheckingInterval: CONNECTIONS_CHECK_MS },
        handler,
      )
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT
      // NB: the settings load later (bootstrap); the guard applies them at each connection.
      server.headersTimeout = DEFAULT_HEADERS_TIMEOUT * 1000
      new ConnectionGuard(() => {
        const current = app.settings.get()
        return connectionPolicy(current.connections, current.trustedProxy.headers)
      }).install(server)
      return server
    },
    clientErrorHandler: (err, socket) => {
      const code = (err as { code?: string }).code
      const [status, message] =
        code === 'HPE_HEADER_OVERFLOW'
          ? [431, messages.headersTooLarge]
          : code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, messages.requestTimedOut]
            : [400, messages.malformedRequest]
      const body = JSON.stringify(new ApiError(status, message).toJSON())
      if (socket.writable) {
        socket.end(
          `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        )
      } else {
        socket.destroy(err)
      }
    },
  })
  http.setErrorHandler(errorHandler(app.logger))
  http.decorate('svcNotFoundFallback', null)
  http.setNotFoundHandler(notFoundHandler)
  await http.register(cors, {
    // An allowed origin is echoed in Access-Control-Allow-Origin; others get no CORS headers.
    origin: options.origins && !options.origins.includes('*') ? options.origins : '*',
    methods: ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'],
    // An OPTIONS request without an Origin is 204, as PocketBase answers it (no CORS headers).
    strictPreflight: false,
  })
  await http.register(multipart, {
    limits: { fileSize: bodyLimit, fieldSize: bodyLimit, parts: 10_000 },
  })

  http.removeContentTypeParser(['application/json', 'text/plain'])
  http.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    const s = String(text)
    if (s.trim() === '') return done(null, {})
    try {
      done(null, parseJsonBody(s)) // 400 for invalid or too deeply nested JSON
    } catch (err) {
      done(err as Error)
    }
  })
  http.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_req, text, done) => {
      done(null, parseUrlEncoded(String(text)))
    },
  )
  http.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, buf, done) => {
    if ((buf as Buffer).length === 0) return done(null, undefined)
    done(badRequest(messages.unsupportedContentType))
  })

  const ipGuard = new SuperuserIpGuard(app)
  const recentKeys = new Map<string, number>()
  const authCache = new AuthCache(app)
  app.services.set('authCache', authCache)
  http.decorateRequest('svcAuth', null)
  http.decorateRequest('svcApiKey', false)
  http.decorateRequest('svcIp', '')
  http.decorateRequest('svcRoute', null)
  registerUploads(http, { dataDir: app.config.dataDir, bodyTimeout: options.bodyTimeout })
  // A path that is not clean (`//`, `.`, `..`): 307 to the clean one, as PocketBase's router.
  http.addHook('onRequest', redirectUncleanPath)
  // NB: a callback hook: a request without a token passes without a promise.
  http.addHook('onRequest', (req, reply, done) => {
    void reply.headers(SECURITY_HEADERS)
    try {
      req.svcIp = clientIp(req, app.settings.get().trustedProxy)
      ipGuard.checkRoute(req, req.svcIp)
    } catch (err) {
      return done(err as Error)
    }
    const token = bearerToken(req.headers.authorization)
    if (!token) return done()
    resolveAuth(app, token, recentKeys, authCache).then(({ auth, apiKey }) => {
      req.svcAuth = auth
      req.svcApiKey = apiKey
      try {
        ipGuard.checkAuth(auth?.collection.name === SUPERUSERS, req.svcIp)
      } catch (err) {
        return done(err as Error)
      }
      done()
    }, done)
  })
  // A settings or schema change answers once every instance sharing the data applied it
  // (`core/cluster-bridge.ts`); alone, or with nothing in flight, this costs nothing.
  http.addHook('onSend', async (req, _reply, payload) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && app.isBootstrapped)
      await app.cluster.settled?.()
    return payload
  })
  if (app.config.dev) {
    // `serve --dev` prints every request, as PocketBase's dev mode does.
    http.addHook('onResponse', (req, reply, done) => {
      app.logger.debug(`${req.method} ${req.url}`, {
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
      })
      done()
    })
  }
  return http
}
