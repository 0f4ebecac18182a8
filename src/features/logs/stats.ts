import type { App } from '../../core/app.js'
import { ApiError, badRequest } from '../../core/errors.js'
import type { RequestInfo } from '../../core/request-info.js'
import { compileFilter } from '../../core/rules/index.js'
import { ident, sql } from '../../store/sql.js'

/** One hour of `GET /api/logs/stats`. */
export interface LogsStat {
  total: number
  /** The hour, `YYYY-MM-DD HH:00:00.000Z`. */
  date: string
}

const ALIAS = '__l'

/**
 * Counts `_logs` rows per hour, oldest hour first, optionally narrowed by a filter over the log
 * fields (`level`, `message`, `data.*`, `created`). An invalid filter is a 400 with the reason;
 * a database failure is 400 `Failed to generate logs stats.` (reference §6).
 */
export async function logsStats(app: App, filter: string, info: RequestInfo): Promise<LogsStat[]> {
  const collection = app.collections.find('_logs')
  if (!collection) return []
  const db = app.dbFor(collection)
  const where =
    filter.trim() === ''
      ? sql`1 = 1`
      : compileFilter(filter, {
          dialect: db.dialect,
          collection,
          alias: ALIAS,
          findCollection: (n) => app.registry.find(n),
          request: info,
          restricted: false,
        })
  // The stored layout is `YYYY-MM-DD HH:MM:SS.sssZ`, so the first 13 characters are the hour.
  const hour = sql`substr(${ident(ALIAS)}.${ident('created')}, 1, 13)`
  try {
    const rows = await db.all<{ total: number | string; hour: string }>(
      sql`SELECT COUNT(*) AS ${ident('total')}, ${hour} AS ${ident('hour')} FROM ${ident(collection.name)} AS ${ident(ALIAS)} WHERE ${where} GROUP BY ${hour} ORDER BY ${hour}`,
    )
    return rows.map((r) => ({ total: Number(r.total), date: `${r.hour}:00:00.000Z` }))
  } catch (err) {
    if (err instanceof ApiError) throw err
    throw badRequest('Failed to generate logs stats.', {}, err)
  }
}
