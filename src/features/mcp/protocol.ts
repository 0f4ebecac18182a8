/**
 * JSON-RPC 2.0 framing of MCP (integrations reference §6.1) and the protocol versions this server
 * speaks. Pure values, no I/O.
 */

/** The protocol versions we answer, newest first (SPEC §9 rule 2 names `2024-11-05`). */
export const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const

/** Our newest version: the answer to a client asking for one we do not know. */
export const LATEST_VERSION = SUPPORTED_VERSIONS[0]

/** SPEC's version: the answer to an `initialize` that names no version at all. */
export const SPEC_VERSION = '2024-11-05'

/**
 * The version a Streamable HTTP request is taken to speak when it sends no `MCP-Protocol-Version`
 * header (the 2025-06-18 transport's rule).
 */
export const DEFAULT_HEADER_VERSION = '2025-03-26'

/** Versions that allow JSON-RPC batches: 2025-03-26 added them, 2025-06-18 removed them. */
const BATCH_VERSIONS = new Set(['2024-11-05', '2025-03-26'])

/** The standard JSON-RPC error codes. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const

/** A request or notification id: a string or a number, never null. */
export type RpcId = string | number

/** A JSON-RPC error object. */
export interface RpcError {
  code: number
  message: string
  data?: unknown
}

/** A response: a result or an error for the request `id` (`null` when it could not be read). */
export type RpcResponse =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId | null; error: RpcError }

/** An error raised while dispatching one message; becomes its JSON-RPC error response. */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
    this.name = 'RpcFailure'
  }
}

/** One incoming message, classified. */
export type Incoming =
  | { kind: 'request'; id: RpcId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  /** A client's response to a server request: accepted and ignored (we send none). */
  | { kind: 'response' }
  | { kind: 'invalid'; id: RpcId | null; error: RpcError }

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const isId = (v: unknown): v is RpcId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))

/**
 * Classifies a parsed JSON value as one JSON-RPC message. `invalid` carries the id when one could
 * be read, so its error response names it.
 */
export function classify(value: unknown, invalid: RpcError): Incoming {
  if (!isObject(value) || value.jsonrpc !== '2.0')
    return { kind: 'invalid', id: null, error: invalid }
  const id = isId(value.id) ? value.id : null
  if (typeof value.method === 'string' && value.method !== '') {
    if (!('id' in value))
      return { kind: 'notification', method: value.method, params: value.params }
    if (id === null) return { kind: 'invalid', id: null, error: invalid }
    return { kind: 'request', id, method: value.method, params: value.params }
  }
  if (!('method' in value) && id !== null && ('result' in value || 'error' in value)) {
    return { kind: 'response' }
  }
  return { kind: 'invalid', id, error: invalid }
}

/** A success response. */
export const success = (id: RpcId, result: unknown): RpcResponse => ({ jsonrpc: '2.0', id, result })

/** An error response. */
export function failure(id: RpcId | null, error: RpcError): RpcResponse {
  return { jsonrpc: '2.0', id, error }
}

/** True when the version is one we speak. */
export function isSupported(version: string): boolean {
  return (SUPPORTED_VERSIONS as readonly string[]).includes(version)
}

/**
 * The version `initialize` answers (integrations §6.2): the client's when we speak it, SPEC's
 * `2024-11-05` when it names none, otherwise our newest.
 */
export function negotiate(requested: string | undefined): string {
  if (requested === undefined) return SPEC_VERSION
  return isSupported(requested) ? requested : LATEST_VERSION
}

/** True when a request speaking `version` may send a JSON-RPC batch. */
export function batchesAllowed(version: string): boolean {
  return BATCH_VERSIONS.has(version)
}
