import type { Db } from '../db.js'
import { rewriteQuotedStrings } from '../view-query.js'

/** PostgreSQL's complaint about a double-quoted name that is no column. */
const unknownQuoted = /^column "((?:[^"]|"")*)" does not exist/

/**
 * Rewrites double-quoted tokens that name no column into string literals, as PocketBase's SQLite
 * (double-quoted strings enabled) reads them: `SELECT id, "abc" AS kind …` runs on PostgreSQL as
 * `SELECT id, 'abc' AS kind …` (see `rewriteQuotedStrings`).
 */
export function postgresViewQuery(db: Db, query: string): Promise<string> {
  return rewriteQuotedStrings(db, query, (message) =>
    unknownQuoted.exec(message)?.[1]?.replaceAll('""', '"'),
  )
}
