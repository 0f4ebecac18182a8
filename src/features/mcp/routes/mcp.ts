import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { openEventStream } from '../../../http/event-stream.js'
import type { App } from '../../../core/app.js'
import { MAX_BODY_JSON_DEPTH } from '../../../http/body.js'
import { errorHandler } from '../../../http/errors.js'
import { requestInfo } from '../../../http/request-info.js'
import { jsonTextDepth } from '../../../tools/json-depth.js'
import {
  DEFAULT_HEADER_VERSION,
  ErrorCode,
  failure,
  isSupported,
  SUPPORTED_VERSIONS,
} from '../protocol.js'
import { rebindingRefusal } from '../origin.js'
import { dispatch } from '../service.js'
import { ENDPOINT, type McpStreams } from '../streams.js'
import { mcpMessages } from '../messages.js'

/** The largest POST body: MCP carries JSON only (no file uploads), so far below the body limit. */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024

const JSON_TYPE = 'application/json; charset=utf-8'

/** Sends a JSON-RPC error that answers no readable request (`id: null`). */
function sendError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
): FastifyReply {
  return reply.code(status).type(JSON_TYPE).send(failure(null, { code, message }))
}

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}

/**
 * True for a body that may hold JSON: `application/json` (or `…+json`) with or without
 * parameters, and also `text/plain` or none, which `fetch` and curl send for a bare string body.
 */
function isJson(type: string | undefined): boolean {
  const essence = (type ?? '').split(';')[0]!.trim().toLowerCase()
  return (
    essence === '' ||
    essence === 'text/plain' ||
    essence === 'application/json' ||
    essence.endsWith('+json')
  )
}

/**
 * `/api/mcp` (SPEC §4.12, DECISIONS "MCP transports"): SPEC's HTTP+SSE handshake on GET and the
 * JSON-RPC dispatch on POST, answered in the POST's own response, which is also the JSON reply
 * mode of the Streamable HTTP transport. No session is issued (no `Mcp-Session-Id`), so a
 * Streamable client's GET for a server stream and its DELETE answer 405.
 */
export function registerMcp(
  app: App,
  http: FastifyInstance,
  streams: McpStreams,
  serverVersion: string,
): void {
  /** Refuses a foreign `Host`/`Origin` with 403 before anything else (DNS rebinding). */
  const guard = (req: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const refused = rebindingRefusal(app, header(req, 'host'), header(req, 'origin'))
    if (refused)
      void sendError(reply, 403, ErrorCode.InvalidRequest, mcpMessages.mcpForeignOrigin(refused))
    else done()
  }

  http.get(ENDPOINT, { onRequest: guard }, (req, reply) => {
    // A Streamable HTTP client (after initialize it sends its version header; a session id if
    // we had issued one) asks for a server-to-client stream we do not offer: 405, which it
    // accepts silently. SPEC's HTTP+SSE client sends neither and gets the handshake.
    if (
      header(req, 'mcp-session-id') !== undefined ||
      header(req, 'mcp-protocol-version') !== undefined
    ) {
      void reply.header('allow', 'POST')
      void sendError(reply, 405, ErrorCode.InvalidRequest, mcpMessages.mcpNoServerStream)
      return
    }
    const res = openEventStream(req, reply)
    if (res) streams.add(res)
  })

  http.delete(ENDPOINT, { onRequest: guard }, (_req, reply) => {
    void reply.header('allow', 'GET, POST')
    return sendError(reply, 405, ErrorCode.InvalidRequest, mcpMessages.mcpNoSession)
  })

  // The POST lives in its own scope: its body arrives as text, so that invalid JSON is a
  // JSON-RPC parse error rather than the API's `{code, message, data}`.
  const apiErrors = errorHandler(app.logger)
  void http.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
      done(null, body)
    })
    scope.post(
      ENDPOINT,
      {
        bodyLimit: MCP_BODY_LIMIT,
        onRequest: guard,
        errorHandler: (err: FastifyError, req, reply) => {
          // Reading the body failed (too large, cut short): a JSON-RPC error. Anything else
          // (a rate limit, the superuser IP guard, an unknown fault) answers as on every route.
          if (err.statusCode === 413) {
            const message = mcpMessages.mcpTooLarge({ max: MCP_BODY_LIMIT })
            void sendError(reply, 413, ErrorCode.InvalidRequest, message)
          } else if (err.code?.startsWith('FST_ERR_CTP_')) {
            const message = mcpMessages.mcpParseError({ reason: err.message })
            void sendError(reply, 400, ErrorCode.ParseError, message)
          } else {
            apiErrors(err, req, reply)
          }
        },
      },
      async (req, reply) => {
        if (!isJson(req.headers['content-type'])) {
          return sendError(reply, 415, ErrorCode.InvalidRequest, mcpMessages.mcpContentType)
        }
        const version = header(req, 'mcp-protocol-version')
        if (version !== undefined && !isSupported(version)) {
          const supported = SUPPORTED_VERSIONS.join(', ')
          return sendError(
            reply,
            400,
            ErrorCode.InvalidRequest,
            mcpMessages.mcpVersionHeader({ version, supported }),
          )
        }
        const text = typeof req.body === 'string' ? req.body : ''
        if (jsonTextDepth(text, MAX_BODY_JSON_DEPTH) > MAX_BODY_JSON_DEPTH) {
          return sendError(
            reply,
            400,
            ErrorCode.ParseError,
            mcpMessages.mcpTooDeep({ max: MAX_BODY_JSON_DEPTH }),
          )
        }
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch (err) {
          const reason = (err as Error).message
          return sendError(reply, 400, ErrorCode.ParseError, mcpMessages.mcpParseError({ reason }))
        }
        const outcome = await dispatch(body, {
          app,
          logger: app.logger,
          info: requestInfo(req),
          version: version ?? DEFAULT_HEADER_VERSION,
          serverVersion,
        })
        if (outcome.status === 202) return reply.code(202).send()
        return reply.code(outcome.status).type(JSON_TYPE).send(JSON.stringify(outcome.body))
      },
    )
  })
}
