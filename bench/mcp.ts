/**
 * MCP: a `get_posts10k` tool call (`POST /api/mcp`, JSON-RPC `tools/call`) beside the same record
 * read through `GET /api/collections/posts10k/records/{id}` on the same svcbase process, in
 * alternating slices of one run: the ratio is what the JSON-RPC envelope, the POST body and the
 * doubled JSON (`content` text and `structuredContent`) cost over the records route. A second row
 * times `tools/list` (the schemas of every collection built per call).
 */
import { cycle, measure, measurePair, shuffled, type RequestSpec } from './load.js'
import { row, type ScenarioRow } from './report.js'
import type { Context, Step } from './scenarios.js'

const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

function call(id: string): RequestSpec {
  return {
    method: 'POST',
    path: '/api/mcp',
    headers: JSON_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_posts10k', arguments: { id } },
    }),
  }
}

async function getTool(ctx: Context): Promise<ScenarioRow> {
  const ids = cycle(shuffled(ctx.data.smallIds))
  const { a, b } = await measurePair(
    {
      url: ctx.svc.url,
      spec: {
        next: () => call(ids()),
        connections: ctx.connections,
        verify: (body: { result?: { isError?: unknown } }) =>
          body?.result?.isError === false ? undefined : 'not a successful tool result',
      },
    },
    {
      url: ctx.svc.url,
      spec: {
        next: () => ({ path: `/api/collections/posts10k/records/${ids()}` }),
        connections: ctx.connections,
      },
    },
    ctx.durationS,
    ctx.warmupS,
  )
  return row('MCP tools/call get_posts10k (baseline: GET …/records/{id})', a, {
    baseline: b,
    note: 'baseline = the same read through svcbase’s records route, same process and run',
  })
}

async function listTools(ctx: Context): Promise<ScenarioRow> {
  const spec: RequestSpec = {
    method: 'POST',
    path: '/api/mcp',
    headers: JSON_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  }
  let tools = 0
  const m = await measure(
    ctx.svc.url,
    {
      next: () => spec,
      connections: ctx.connections,
      verify: (body: { result?: { tools?: unknown[] } }) => {
        tools = body?.result?.tools?.length ?? 0
        return tools > 0 ? undefined : 'no tools listed'
      },
    },
    ctx.durationS,
    ctx.warmupS,
  )
  return row('MCP tools/list (guest)', m, { note: `${tools} tools per answer` })
}

/** The MCP rows (`BENCH_ONLY=mcp`). */
export function mcpSteps(): Step[] {
  return [{ label: 'mcp tools', run: async (ctx) => [await getTool(ctx), await listTools(ctx)] }]
}
