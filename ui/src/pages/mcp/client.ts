/**
 * A tiny MCP client for the playground: JSON-RPC 2.0 over the Streamable HTTP transport with
 * plain `fetch` (`POST /api/mcp`, answered as JSON; docs/mcp.md), recording every message both
 * ways for the transcript.
 */
import { apiBase } from '../../api'

/** A tool as `tools/list` describes it. */
export interface Tool {
  name: string
  description?: string
  inputSchema: JsonSchema
}

/** The part of JSON Schema the tool schemas use. */
export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  enum?: unknown[]
  items?: JsonSchema
  description?: string
  minimum?: number
  maximum?: number
  format?: string
}

/** One line of the transcript. */
export interface Exchange {
  direction: 'request' | 'response'
  /** The HTTP status of a response. */
  status?: number
  body: unknown
}

/** The protocol version the playground asks for. */
export const PROTOCOL_VERSION = '2025-06-18'

/** A session: who it acts as (a bearer token, or none for a guest) and its transcript. */
export class McpSession {
  private nextId = 1
  constructor(
    private readonly token: string,
    private readonly record: (e: Exchange) => void,
  ) {}

  private async post(message: Record<string, unknown>): Promise<unknown> {
    this.record({ direction: 'request', body: message })
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    }
    if (this.token) headers.authorization = `Bearer ${this.token}`
    if (message.method !== 'initialize') headers['mcp-protocol-version'] = PROTOCOL_VERSION
    const res = await fetch(new URL('api/mcp', apiBase), {
      method: 'POST',
      headers,
      body: JSON.stringify(message),
    })
    const text = await res.text()
    let body: unknown = text
    try {
      body = text ? JSON.parse(text) : null
    } catch {
      // keep the text
    }
    this.record({ direction: 'response', status: res.status, body })
    return body
  }

  /** Sends a request and returns its `result`; throws with the JSON-RPC error's message. */
  async request<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const body = (await this.post({ jsonrpc: '2.0', id: this.nextId++, method, params })) as {
      result?: T
      error?: { code: number; message: string }
    } | null
    if (body?.error) throw new Error(`${body.error.message} (${body.error.code})`)
    if (!body || body.result === undefined) throw new Error('The server sent no result.')
    return body.result
  }

  /** Sends a notification (no answer expected but the 202). */
  async notify(method: string): Promise<void> {
    await this.post({ jsonrpc: '2.0', method })
  }

  /** `initialize` then `notifications/initialized`, then `tools/list`. */
  async connect(): Promise<Tool[]> {
    await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'svcbase-dashboard', version: '1' },
    })
    await this.notify('notifications/initialized')
    const { tools } = await this.request<{ tools: Tool[] }>('tools/list')
    return tools
  }
}
