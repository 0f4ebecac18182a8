import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../../core/errors.js'
import { routeUrl } from '../../http/request-info.js'
import { successLogSkipped } from '../../http/log-skip.js'
import type { Settings } from '../../core/settings/index.js'
import { LogLevel } from './writer.js'

/** Longest `url` kept, in characters (PocketBase's limit). */
const MAX_URL = 3000
/** Longest `referer` and `userAgent` kept, in characters. */
const MAX_HEADER = 2000

/** A request log before it is queued. */
export interface RequestLog {
  level: number
  message: string
  data: Record<string, unknown>
}

const header = (v: string | string[] | undefined): string =>
  (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).slice(0, MAX_HEADER)

function unescape(url: string): string {
  try {
    return decodeURI(url)
  } catch {
    return url
  }
}

/** The path of a request URL, without its query. */
export function pathOf(url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/**
 * True for requests never logged: CORS preflights, `/metrics` (SPEC §4.16), the realtime stream
 * (reference §4.1) and, as in PocketBase, successful calls of the logs API itself.
 */
export function skipLog(req: FastifyRequest, status: number): boolean {
  if (req.method === 'OPTIONS') return true
  const path = pathOf(req.url)
  if (path === '/metrics') return true
  if (req.method === 'GET' && (path === '/api/realtime' || routeUrl(req) === '/api/realtime'))
    return true
  if (status < 400 && successLogSkipped(req)) return true
  return status < 400 && (path === '/api/logs' || path.startsWith('/api/logs/'))
}

/** `error` and `details` of a failed request: the public message and the internal cause or field data. */
function errorFields(err: Error): { error: string; details: unknown } {
  if (!(err instanceof ApiError)) return { error: err.message, details: '' }
  const cause: unknown = err.cause
  if (cause !== undefined && cause !== null)
    return {
      error: err.message,
      details: cause instanceof Error ? cause.message : JSON.stringify(cause),
    }
  return { error: err.message, details: Object.keys(err.data).length > 0 ? err.data : '' }
}

/**
 * The log of a finished request in PocketBase's shape: message `"<METHOD> <unescaped URI>"`,
 * level info below 400 and error from 400 on, and `data` with `type: "request"`, `url`,
 * `method`, `status`, `execTime` (ms), `referer`, `userAgent`, `auth` (collection name or `""`),
 * `authId` when `logAuthId`, `userIP` and `remoteIP` when `logIP`, `error`/`details` on failure.
 */
export function requestLog(
  req: FastifyRequest,
  reply: FastifyReply,
  settings: Settings['logs'],
  error: Error | undefined,
): RequestLog {
  const status = reply.statusCode
  const url = req.url.slice(0, MAX_URL)
  const data: Record<string, unknown> = {
    type: 'request',
    url,
    method: req.method,
    status,
    execTime: Math.round(reply.elapsedTime * 1000) / 1000,
    referer: header(req.headers.referer),
    userAgent: header(req.headers['user-agent']),
    auth: req.svcAuth?.collection.name ?? '',
  }
  if (settings.logAuthId) {
    const id = req.svcAuth?.record.id
    data.authId = typeof id === 'string' ? id : ''
  }
  if (settings.logIP) {
    data.userIP = req.svcIp || req.ip
    data.remoteIP = req.socket.remoteAddress ?? ''
  }
  if (status >= 400 && error) Object.assign(data, errorFields(error))
  return {
    level: status >= 400 ? LogLevel.error : LogLevel.info,
    message: `${req.method} ${unescape(url)}`,
    data,
  }
}
