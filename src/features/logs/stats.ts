import type { App } from '../../core/app.js'
import type { Collection } from '../../core/collections/model.js'
import { ApiError, badRequest, messages } from '../../core/errors.js'
import type { RequestInfo } from '../../core/request-info.js'
import { compileFilter } from '../../core/rules/index.js'
import { ident, sql, type Sql } from '../../store/sql.js'

/** One hour of `GET /api/logs/stats`. */
export interface LogsStat {
  total: number
  /** The hour, `YYYY-MM-DD HH:00:00.000Z`. */
  date: string
}

/** The alias of the logs table, which `where` refers to. */
export const LOGS_ALIAS = '__l'

/**
 * The stats query: rows per hour of `created`, oldest first, narrowed by `where` (over
 * `LOGS_ALIAS`). Dates are stored as text in the layout `YYYY-MM-DD HH:MM:SS.sssZ` on every
 * engine, so the hour is the first 13 characters: `substr` is standard, no dialect function.
 */
export function logsStatsQuery(collection: Collection, where: Sql): Sql {
  const hour = sql`substr(${ident(LOGS_ALIAS)}.${ident('created')}, 1, 13)`
  return sql`SELECT COUNT(*) AS ${ident('total')}, ${hour} AS ${ident('hour')} FROM ${ident(collection.name)} AS ${ident(LOGS_ALIAS)} WHERE ${where} GROUP BY ${hour} ORDER BY ${hour}`
}

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
          alias: LOGS_ALIAS,
          findCollection: (n) => app.registry.find(n),
          request: info,
          restricted: false,
        })
  try {
    const rows = await db.all<{ total: number | string; hour: string }>(
      logsStatsQuery(collection, where),
    )
    // PostgreSQL's COUNT is a bigint, which its driver returns as text.
    return rows.map((r) => ({ total: Number(r.total), date: `${r.hour}:00:00.000Z` }))
  } catch (err) {
    if (err instanceof ApiError) throw err
    throw badRequest(messages.logsStatsFailed, {}, err)
  }
}
