/**
 * MCP (SPEC §4.12, §4.13, §9 rule 2): `/api/mcp` exposes every non-system collection to agents
 * as tools run under the caller's own rules, over SPEC's HTTP+SSE transport and the Streamable
 * HTTP transport of current clients; `GET /api/collections/{name}/tool-schema` shows the
 * function-calling conversion its create tools use. See docs/mcp.md.
 */
import { readFileSync } from 'node:fs'
import type { Feature } from '../../http/feature.js'
import { registerMcp } from './routes/mcp.js'
import { registerToolSchema } from './routes/tool-schema.js'
import { KEEP_ALIVE_MS, McpStreams } from './streams.js'
import { mcpMessages } from './messages.js'

/** Options of the MCP feature (tests shorten the keep-alive). */
export interface McpOptions {
  /** The interval of the SSE keep-alive comments, in ms (25 000, SPEC §8). */
  keepAliveMs?: number
}

/** The package version for `serverInfo` (package.json sits three folders up in src/ and dist/). */
function packageVersion(): string {
  try {
    const url = new URL('../../../package.json', import.meta.url)
    const pkg = JSON.parse(readFileSync(url, 'utf8')) as { version?: unknown }
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0'
  } catch {
    return '0.0.0'
  }
}

/** The MCP feature: the `/api/mcp` endpoint and the tool-schema route. */
export function mcpFeature(options: McpOptions = {}): Feature {
  return {
    name: 'mcp',
    messages: mcpMessages,
    register: ({ app, http }) => {
      const streams = new McpStreams(options.keepAliveMs ?? KEEP_ALIVE_MS)
      registerMcp(app, http, streams, packageVersion())
      registerToolSchema(app, http)
      // Open streams end when the app terminates (also on an in-process restart) and before
      // HTTP closes, so that closing does not wait for them.
      app.hooks.onTerminate.bind(async (e) => {
        streams.close()
        await e.next()
      })
      http.addHook('preClose', async () => streams.close())
    },
  }
}
