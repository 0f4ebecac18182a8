/**
 * The MCP tools (SPEC §4.12): five per non-system collection (`list_`, `get_`, `create_`,
 * `update_`, `delete_`), two per view (`list_`, `get_`). A call runs the same record request
 * (hooks, rules, validation, events) as the equivalent HTTP record route, with the caller's
 * auth; a refusal by the record service is a result with `isError: true`.
 */
import type { App } from '../../core/app.js'
import type { Collection, RuleKey } from '../../core/collections/model.js'
import { ApiError } from '../../core/errors.js'
import type { HookResponse } from '../../core/request-event.js'
import { isSuperuser, type RequestInfo } from '../../core/request-info.js'
import {
  createRequest,
  deleteRequest,
  listRequest,
  updateRequest,
  viewRequest,
} from '../../core/records/request-hooks.js'
import { ErrorCode, RpcFailure } from './protocol.js'
import {
  recordSchema,
  toolName,
  toolSchema,
  type CollectionNames,
  type JsonSchema,
  type ObjectSchema,
} from './tool-schema.js'
import { mcpMessages } from './messages.js'

/** The largest `perPage` a list tool accepts, as the list route (SPEC §8). */
export const MAX_PER_PAGE = 500

/** A tool as `tools/list` shows it. */
export interface Tool {
  name: string
  description: string
  inputSchema: ObjectSchema
}

/** What `tools/call` answers. */
export interface ToolResult {
  content: { type: 'text'; text: string }[]
  structuredContent: Record<string, unknown>
  isError: boolean
}

type Verb = 'list' | 'get' | 'create' | 'update' | 'delete'

const VERBS: readonly Verb[] = ['list', 'get', 'create', 'update', 'delete']

/** The rule each verb is authorized by (SPEC §2.2). */
const RULE: Record<Verb, RuleKey> = {
  list: 'listRule',
  get: 'viewRule',
  create: 'createRule',
  update: 'updateRule',
  delete: 'deleteRule',
}

const idSchema = (what: string): JsonSchema => ({ type: 'string', description: what })

/** A non-system collection: its name does not start with `_` (SPEC §4.12 rule 1). */
const exposed = (c: Collection): boolean => !c.name.startsWith('_')

/** The verbs a collection has tools for: views are read-only. */
const verbsOf = (c: Collection): readonly Verb[] => (c.type === 'view' ? ['list', 'get'] : VERBS)

function describe(verb: Verb, c: Collection, names: CollectionNames): Tool {
  const name = toolName(verb, c)
  const n = c.name
  switch (verb) {
    case 'list':
      return {
        name,
        description: `List records of the ${n} collection, newest first unless sorted (its listRule applies; a failing rule gives an empty page).`,
        inputSchema: {
          type: 'object',
          properties: {
            filter: {
              type: 'string',
              description: "A filter, e.g. title ~ 'abc' && created > '2024-01-01'.",
            },
            sort: { type: 'string', description: 'Fields to sort by, e.g. -created,title.' },
            page: { type: 'integer', minimum: 1, description: 'The page, from 1.' },
            perPage: {
              type: 'integer',
              minimum: 1,
              maximum: MAX_PER_PAGE,
              description: `Records per page (default 30, at most ${MAX_PER_PAGE}).`,
            },
            expand: { type: 'string', description: 'Relation fields to expand, e.g. author,tags.' },
          },
          required: [],
        },
      }
    case 'get':
      return {
        name,
        description: `Get one record of the ${n} collection by id (its viewRule applies).`,
        inputSchema: {
          type: 'object',
          properties: {
            id: idSchema('The record id.'),
            expand: { type: 'string', description: 'Relation fields to expand.' },
          },
          required: ['id'],
        },
      }
    case 'create': {
      const schema = toolSchema(c, names)
      return { name, description: schema.description, inputSchema: schema.parameters }
    }
    case 'update': {
      const { properties } = recordSchema(c, names)
      const extra: Record<string, JsonSchema> =
        c.type === 'auth'
          ? {
              oldPassword: { type: 'string', description: 'Required to change your own password.' },
            }
          : {}
      return {
        name,
        description: `Update a record of the ${n} collection: only the given fields change (its updateRule applies).`,
        inputSchema: {
          type: 'object',
          properties: { ...properties, ...extra, id: idSchema('The id of the record to update.') },
          required: ['id'],
        },
      }
    }
    case 'delete':
      return {
        name,
        description: `Delete a record of the ${n} collection (its deleteRule applies).`,
        inputSchema: {
          type: 'object',
          properties: { id: idSchema('The record id.') },
          required: ['id'],
        },
      }
  }
}

/**
 * The tools the caller may use, by collection name: a superuser sees every tool; anyone else
 * does not see a tool whose rule is locked (`null`, superusers only), as it could never succeed.
 */
export function listTools(app: App, info: RequestInfo): Tool[] {
  const su = isSuperuser(info)
  const names: CollectionNames = (id) => app.collections.find(id)?.name
  return app.collections
    .all()
    .filter(exposed)
    .flatMap((c) =>
      verbsOf(c)
        .filter((v) => su || c[RULE[v]] !== null)
        .map((v) => describe(v, c, names)),
    )
}

/** The collection and verb a tool name stands for, or null for an unknown tool. */
function resolve(app: App, name: string): { c: Collection; verb: Verb } | null {
  const at = name.indexOf('_')
  if (at < 0) return null
  const verb = name.slice(0, at) as Verb
  const c = app.collections.find(name.slice(at + 1))
  if (!VERBS.includes(verb) || !c || c.name !== name.slice(at + 1) || !exposed(c)) return null
  return verbsOf(c).includes(verb) ? { c, verb } : null
}

/** A string argument, or undefined when absent; another type is a -32602. */
function stringArg(args: Record<string, unknown>, name: string): string | undefined {
  const v = args[name]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') {
    throw new RpcFailure(
      ErrorCode.InvalidParams,
      mcpMessages.mcpArgumentType({ name, type: 'a string' }),
    )
  }
  return v
}

/** A positive integer argument (integers sent as text are taken too). */
function intArg(args: Record<string, unknown>, name: string): string | undefined {
  const v = args[name]
  if (v === undefined || v === null) return undefined
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) {
    throw new RpcFailure(
      ErrorCode.InvalidParams,
      mcpMessages.mcpArgumentType({ name, type: 'a positive integer' }),
    )
  }
  return String(n)
}

/** The required record id of get, update and delete. */
function idArg(args: Record<string, unknown>): string {
  const id = stringArg(args, 'id')
  if (id === undefined || id === '') {
    throw new RpcFailure(
      ErrorCode.InvalidParams,
      mcpMessages.mcpArgumentType({ name: 'id', type: 'a non-empty record id' }),
    )
  }
  return id
}

/** The query a list or get tool's arguments stand for, as the route's query string would. */
function queryOf(args: Record<string, unknown>, keys: readonly string[]): Record<string, string> {
  const query: Record<string, string> = {}
  for (const key of keys) {
    const v = key === 'page' || key === 'perPage' ? intArg(args, key) : stringArg(args, key)
    if (v !== undefined) query[key] = v
  }
  return query
}

const HTTP_METHOD: Record<Verb, string> = {
  list: 'GET',
  get: 'GET',
  create: 'POST',
  update: 'PATCH',
  delete: 'DELETE',
}

/** Runs the record request of a verb; the answer its request hooks left. */
async function run(
  app: App,
  c: Collection,
  verb: Verb,
  args: Record<string, unknown>,
  base: RequestInfo,
): Promise<HookResponse> {
  const info = (query: Record<string, string>, body: Record<string, unknown>): RequestInfo => ({
    ...base,
    query,
    body,
    method: HTTP_METHOD[verb],
    context: 'default',
  })
  switch (verb) {
    case 'list': {
      const query = queryOf(args, ['filter', 'sort', 'page', 'perPage', 'expand'])
      return listRequest(app, c, query, info(query, {}))
    }
    case 'get': {
      const id = idArg(args)
      return viewRequest(app, c, id, info(queryOf(args, ['expand']), {}))
    }
    case 'create':
      return createRequest(app, c, args, info({}, args), [])
    case 'update': {
      const id = idArg(args)
      const { id: _target, ...body } = args
      return updateRequest(app, c, id, body, info({}, body), [])
    }
    case 'delete': {
      const id = idArg(args)
      const res = await deleteRequest(app, c, id, info({}, {}))
      return res.kind === 'empty' && res.status < 300
        ? { status: 200, kind: 'json', body: { id, deleted: true } }
        : res
    }
  }
}

/** A tool result from a JSON value: mirrored as text in `content` (integrations §6.2). */
function result(value: unknown, isError: boolean): ToolResult {
  const structured =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { result: value }
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: structured,
    isError,
  }
}

/**
 * `tools/call`: an unknown tool or malformed arguments are JSON-RPC errors (-32602); what the
 * record service refuses (a rule, validation, a missing record) is a result with `isError: true`
 * whose text is the `{code, message, data}` the HTTP route would have answered.
 */
export async function callTool(
  app: App,
  name: unknown,
  args: unknown,
  base: RequestInfo,
): Promise<ToolResult> {
  if (typeof name !== 'string' || name === '') {
    throw new RpcFailure(ErrorCode.InvalidParams, mcpMessages.mcpToolNameMissing)
  }
  const tool = resolve(app, name)
  if (!tool) throw new RpcFailure(ErrorCode.InvalidParams, mcpMessages.mcpUnknownTool({ name }))
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new RpcFailure(ErrorCode.InvalidParams, mcpMessages.mcpArgumentsNotObject)
  }
  const argv = (args ?? {}) as Record<string, unknown>
  try {
    const res = await run(app, tool.c, tool.verb, argv, base)
    const body = res.kind === 'empty' ? {} : res.body
    return result(body, res.status >= 400)
  } catch (err) {
    if (err instanceof ApiError) return result(err.toJSON(), true)
    throw err
  }
}
