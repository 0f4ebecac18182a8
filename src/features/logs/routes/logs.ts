import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { notFound } from '../../../core/errors.js'
import type { Collection } from '../../../core/collections/model.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { logsStats } from '../stats.js'

/** The perPage cap of the logs list (SPEC §8: 1000 outside the records list endpoint). */
export const LOGS_MAX_PER_PAGE = 1000

/** A log item in PocketBase's field order (reference §6). */
function logItem(r: Record<string, unknown>): Record<string, unknown> {
  return { id: r.id, created: r.created, data: r.data, message: r.message, level: r.level }
}

/**
 * The logs API of reference §6, superuser only (401 without a token, 403 for other records):
 * `GET /api/logs` (list with page/perPage/sort/filter/skipTotal), `GET /api/logs/stats`
 * (hourly `[{total, date}]`, optional `filter`) and `GET /api/logs/{id}` (404 when missing).
 */
export function registerRoutes(app: App, http: FastifyInstance): void {
  const logs = (): Collection => {
    const c = app.collections.find('_logs')
    if (!c) throw notFound()
    return c
  }

  http.get('/api/logs', async (req) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    const page = await app.records.list(logs(), req.query as Record<string, unknown>, info, {
      maxPerPage: LOGS_MAX_PER_PAGE,
    })
    return { ...page, items: page.items.map(logItem) }
  })

  http.get('/api/logs/stats', async (req) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    return logsStats(app, info.query.filter ?? '', info)
  })

  http.get<{ Params: { id: string } }>('/api/logs/:id', async (req) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    return logItem(await app.records.view(logs(), req.params.id, info))
  })
}
