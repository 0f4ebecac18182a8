/**
 * The open `GET /api/mcp` streams of SPEC's HTTP+SSE transport: each got its `endpoint` event
 * and then receives a keep-alive comment every `keepAliveMs` (25 s, SPEC §8) from one shared
 * timer, until the client leaves or the server stops.
 */
import type { ServerResponse } from 'node:http'
import { formatSseMessage } from '../../tools/sse.js'

/** The keep-alive interval of SPEC §8. */
export const KEEP_ALIVE_MS = 25_000

/** The POST path announced by the `endpoint` event. */
export const ENDPOINT = '/api/mcp'

/** The open streams of one server. */
export class McpStreams {
  private readonly open = new Set<ServerResponse>()
  private timer: NodeJS.Timeout | null = null

  constructor(private readonly keepAliveMs: number = KEEP_ALIVE_MS) {}

  /** How many streams are open. */
  get size(): number {
    return this.open.size
  }

  /** Sends the `endpoint` event on a response whose SSE headers are written, and keeps it. */
  add(res: ServerResponse): void {
    this.open.add(res)
    res.on('close', () => this.remove(res))
    res.write(formatSseMessage({ event: 'endpoint', data: ENDPOINT }))
    if (!this.timer) {
      this.timer = setInterval(() => this.ping(), this.keepAliveMs)
      this.timer.unref()
    }
  }

  private remove(res: ServerResponse): void {
    this.open.delete(res)
    if (this.open.size === 0 && this.timer) {
      clearInterval(this.timer)
      this.timer = null
    }
  }

  private ping(): void {
    for (const res of this.open) res.write(':keep-alive\n\n')
  }

  /** Ends every stream (the server stops). */
  close(): void {
    for (const res of [...this.open]) {
      this.remove(res)
      res.end()
    }
  }
}
