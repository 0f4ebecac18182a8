import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { toolSchema } from '../tool-schema.js'

/**
 * `GET /api/collections/{name}/tool-schema` (SPEC §4.13, superuser only: 401 without a token,
 * 403 for anyone else, 404 for an unknown collection): the conversion the `create_<collection>`
 * MCP tool uses as its `inputSchema`.
 */
export function registerToolSchema(app: App, http: FastifyInstance): void {
  http.get<{ Params: { collection: string } }>(
    '/api/collections/:collection/tool-schema',
    async (req) => {
      requireSuperuser(requestInfo(req))
      const c = app.collections.get(req.params.collection)
      return toolSchema(c, (id) => app.collections.find(id)?.name)
    },
  )
}
