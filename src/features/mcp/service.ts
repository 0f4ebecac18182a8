/**
 * The MCP dispatcher (SPEC §4.12): one JSON-RPC message or a batch in, the responses out. No
 * HTTP here: the route hands over the parsed body, the protocol version the request speaks and
 * the caller's RequestInfo.
 */
import type { App } from '../../core/app.js'
import type { Logger } from '../../core/logger.js'
import type { RequestInfo } from '../../core/request-info.js'
import {
  batchesAllowed,
  classify,
  ErrorCode,
  failure,
  negotiate,
  RpcFailure,
  success,
  type Incoming,
  type RpcError,
  type RpcResponse,
} from './protocol.js'
import { callTool, listTools } from './tools.js'
import { mcpMessages } from './messages.js'

/** The most messages one batch may hold (work per request stays bounded). */
export const MAX_BATCH = 50

/** What the route sends: a JSON body with its status, or 202 without a body. */
export type Outcome = { status: 200; body: RpcResponse | RpcResponse[] } | { status: 202 }

/** What one POST carries besides its body. */
export interface DispatchContext {
  app: App
  logger: Logger
  info: RequestInfo
  /** The version the request speaks (its `MCP-Protocol-Version` header, or the default). */
  version: string
  /** The package version, for `serverInfo`. */
  serverVersion: string
}

const invalid = (): RpcError => ({
  code: ErrorCode.InvalidRequest,
  message: mcpMessages.mcpInvalidMessage,
})

const paramsObject = (params: unknown): Record<string, unknown> => {
  if (params === undefined || params === null) return {}
  if (typeof params !== 'object' || Array.isArray(params)) {
    throw new RpcFailure(ErrorCode.InvalidParams, mcpMessages.mcpParamsNotObject)
  }
  return params as Record<string, unknown>
}

/** The result of one request, or a {@link RpcFailure}. */
async function answer(method: string, params: unknown, ctx: DispatchContext): Promise<unknown> {
  switch (method) {
    case 'initialize': {
      const requested = paramsObject(params).protocolVersion
      if (requested !== undefined && typeof requested !== 'string') {
        throw new RpcFailure(ErrorCode.InvalidParams, mcpMessages.mcpVersionNotString)
      }
      return {
        protocolVersion: negotiate(requested),
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'svcbase', version: ctx.serverVersion },
      }
    }
    case 'ping':
      paramsObject(params)
      return {}
    case 'tools/list':
      paramsObject(params)
      return { tools: listTools(ctx.app, ctx.info) }
    case 'tools/call': {
      const p = paramsObject(params)
      return callTool(ctx.app, p.name, p.arguments, ctx.info)
    }
    default:
      throw new RpcFailure(ErrorCode.MethodNotFound, mcpMessages.mcpMethodNotFound({ method }))
  }
}

/** The response to one classified message; null for notifications and client responses. */
async function one(message: Incoming, ctx: DispatchContext): Promise<RpcResponse | null> {
  if (message.kind === 'invalid') return failure(message.id, message.error)
  if (message.kind !== 'request') return null
  try {
    return success(message.id, await answer(message.method, message.params, ctx))
  } catch (err) {
    if (err instanceof RpcFailure) {
      const error: RpcError = { code: err.code, message: err.message }
      if (err.data !== undefined) error.data = err.data
      return failure(message.id, error)
    }
    ctx.logger.error('mcp request failed', {
      method: message.method,
      error: err instanceof Error ? (err.stack ?? err.message) : JSON.stringify(err),
    })
    return failure(message.id, {
      code: ErrorCode.InternalError,
      message: mcpMessages.mcpInternalError,
    })
  }
}

/**
 * Dispatches a parsed POST body: a request answers its response, an invalid message a -32600
 * (JSON-RPC errors travel in a 200 answer; only unreadable JSON is a 400, in the route), a
 * notification or a client response 202 without a body. A batch (where the version allows one)
 * answers the array of its responses, or 202 when it held no request.
 */
export async function dispatch(body: unknown, ctx: DispatchContext): Promise<Outcome> {
  if (!Array.isArray(body)) {
    const message = classify(body, invalid())
    const res = await one(message, ctx)
    if (!res) return { status: 202 }
    return { status: 200, body: res }
  }
  const reject = (message: string): Outcome => ({
    status: 200,
    body: failure(null, { code: ErrorCode.InvalidRequest, message }),
  })
  if (!batchesAllowed(ctx.version))
    return reject(mcpMessages.mcpBatchNotSupported({ version: ctx.version }))
  if (body.length === 0) return reject(mcpMessages.mcpEmptyBatch)
  if (body.length > MAX_BATCH) return reject(mcpMessages.mcpBatchTooLarge({ max: MAX_BATCH }))
  const out: RpcResponse[] = []
  for (const item of body) {
    const res = await one(classify(item, invalid()), ctx)
    if (res) out.push(res)
  }
  return out.length === 0 ? { status: 202 } : { status: 200, body: out }
}
