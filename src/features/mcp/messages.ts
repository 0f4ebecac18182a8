/**
 * Messages of the MCP endpoint (`/api/mcp`, JSON-RPC 2.0 error messages) and of the tool schema
 * route. See docs/mcp.md.
 */
import type { Args } from '../../core/errors/catalogue.js'

/** Messages of the MCP feature. */
export const mcpMessages = {
  mcpParseError: ({ reason }: Args<'reason'>) =>
    `Parse error: the body is not valid JSON (${reason}).` as const,
  mcpTooDeep: ({ max }: Args<'max'>) =>
    `Parse error: the JSON body is nested deeper than ${max} levels.` as const,
  mcpTooLarge: ({ max }: Args<'max'>) =>
    `Request entity too large: an MCP message is at most ${max} bytes.` as const,
  mcpContentType: 'Unsupported Content-Type: POST /api/mcp takes application/json.',
  mcpInvalidMessage:
    'Invalid request: a JSON-RPC 2.0 message is an object with "jsonrpc": "2.0", a string "method" and, for a request, a string or number "id".',
  mcpEmptyBatch: 'Invalid request: the batch is empty.',
  mcpBatchTooLarge: ({ max }: Args<'max'>) =>
    `Invalid request: a batch holds at most ${max} messages.` as const,
  mcpBatchNotSupported: ({ version }: Args<'version'>) =>
    `Invalid request: JSON-RPC batches are not part of MCP protocol version ${version}.` as const,
  mcpVersionHeader: ({ version, supported }: Args<'version' | 'supported'>) =>
    `Bad request: unsupported MCP-Protocol-Version header "${version}" (supported: ${supported}).` as const,
  mcpNoServerStream:
    'Method not allowed: this server opens no server-to-client stream for Streamable HTTP clients; POST each message to /api/mcp.',
  mcpNoSession:
    'Method not allowed: the server issues no Mcp-Session-Id, so there is no session to end.',
  mcpForeignOrigin: ({ header, value }: Args<'header' | 'value'>) =>
    `Forbidden: the ${header} header "${value}" is neither a loopback address nor the app URL (meta.appURL); /api/mcp refuses it against DNS rebinding.` as const,
  mcpMethodNotFound: ({ method }: Args<'method'>) => `Method not found: ${method}.` as const,
  mcpParamsNotObject: 'Invalid params: "params" must be an object.',
  mcpVersionNotString: 'Invalid params: "protocolVersion" must be a string.',
  mcpToolNameMissing: 'Invalid params: "name" must name a tool (a non-empty string).',
  mcpUnknownTool: ({ name }: Args<'name'>) =>
    `Invalid params: unknown tool ${name} (see tools/list).` as const,
  mcpArgumentsNotObject: 'Invalid params: "arguments" must be an object.',
  mcpArgumentType: ({ name, type }: Args<'name' | 'type'>) =>
    `Invalid params: the argument "${name}" must be ${type}.` as const,
  mcpInternalError: 'Internal error: the tool failed unexpectedly (see the server log).',
} as const

declare module '../../core/errors/catalogue.js' {
  interface FeatureMessages {
    mcp: typeof mcpMessages
  }
}
