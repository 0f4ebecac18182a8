/**
 * The API key a realtime stream is bound to (security issue #32): its `_api_keys` row read by id
 * or by the key's hash, so the stream ends when the key is deleted or expires.
 */
import type { App } from '../../core/app.js'
import { API_KEYS } from '../../core/auth/api-keys.js'
import { ident, sql } from '../../store/sql.js'
import { parseDate } from '../../tools/dates.js'
import type { BoundKey } from './hub.js'

/** The `_api_keys` row of an API key by its id, or by the key's hash; null when it is gone. */
export async function findKey(
  app: App,
  by: { id: string } | { hash: string },
): Promise<BoundKey | null> {
  const keys = app.collections.find(API_KEYS)
  if (!keys) return null
  // NB: `!= ''` repeats the partial unique index's condition, so SQLite searches that index.
  const where =
    'id' in by
      ? sql`${ident('id')} = ${by.id}`
      : sql`${ident('keyHash')} = ${by.hash} AND ${ident('keyHash')} != ''`
  const row = await app.dbFor(keys).get<{
    id: string
    expires: string
  }>(sql`SELECT ${ident('id')}, ${ident('expires')} FROM ${ident(keys.name)} WHERE ${where} LIMIT 1`)
  if (!row) return null
  return { id: String(row.id), expiresAt: parseDate(row.expires)?.getTime() ?? null }
}
