import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, badRequest, internal, messages, notFound, tooLarge } from '../core/errors.js'
import type { Logger } from '../core/logger.js'
import { DbError, ReadTimeout } from '../store/db.js'

/** Maps Fastify's own errors (body parsing, limits) to client errors with precise messages. */
function fromFastify(err: FastifyError): ApiError | null {
  const status = err.statusCode ?? 0
  if (
    status === 413 ||
    err.code === 'FST_REQ_FILE_TOO_LARGE' ||
    err.code === 'FST_PARTS_LIMIT' ||
    err.code === 'FST_FILES_LIMIT'
  )
    return tooLarge()
  if (status === 415 || err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return badRequest(messages.unsupportedContentType)
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return null
  if (status >= 400 && status < 500)
    return badRequest(messages.bodyUnreadable({ reason: err.message }))
  return null
}

/** A read the read budget stopped, or one refused while too many slow reads waited: a 503. */
function fromDb(err: unknown): ApiError | null {
  if (err instanceof ReadTimeout)
    return new ApiError(503, messages.readTimedOut({ ms: err.budgetMs }), {}, err)
  if (err instanceof DbError && err.kind === 'busy')
    return new ApiError(503, messages.readsBusy, {}, err)
  return null
}

/** A 500 whose cause is a read the budget stopped answers as that (see `fromDb`). */
function api500ToBudget(err: ApiError): ApiError {
  return err.status === 500 ? (fromDb(err.cause) ?? err) : err
}

/**
 * The one error mapper at the HTTP edge: every failure leaves as `{code, message, data}`;
 * unknown faults are logged with their cause and answered 500 with a generic message.
 */
export function errorHandler(logger: Logger) {
  return (err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): void => {
    let api: ApiError
    if (err instanceof ApiError) api = api500ToBudget(err)
    else api = fromDb(err) ?? fromFastify(err as FastifyError) ?? internal(err)
    // 501 is a feature not built yet: expected, not a fault to log.
    if (api.status >= 500 && api.status !== 501) {
      const cause = api.cause ?? err
      logger.error('request failed', {
        method: req.method,
        url: req.url,
        error: cause instanceof Error ? (cause.stack ?? cause.message) : JSON.stringify(cause),
      })
    }
    void reply.code(api.status).type('application/json').send(api.toJSON())
  }
}

/**
 * What answers a request no route matched before the JSON 404 (the static feature's files):
 * it resolves to true when it answered. Set on the HTTP instance (`http.svcNotFoundFallback`).
 */
export type NotFoundFallback = (req: FastifyRequest, reply: FastifyReply) => Promise<boolean>

declare module 'fastify' {
  interface FastifyInstance {
    svcNotFoundFallback: NotFoundFallback | null
  }
}

/**
 * Unknown routes and wrong methods answer 404 (reference §0.1), after the instance's fallback
 * (static files) had its chance: the lowest precedence of all, below every route.
 */
export async function notFoundHandler(
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const fallback = req.server.svcNotFoundFallback
  if (fallback && (await fallback(req, reply))) return reply
  // NB: PocketBase answers an unknown GET from its file server, with that server's wording.
  const read = req.method === 'GET' || req.method === 'HEAD'
  return reply.code(404).send(notFound(read ? messages.fileNotFound : undefined).toJSON())
}
