import type { Db } from '../db.js'
import { rewriteQuotedStrings } from '../view-query.js'

/** SQLite's complaint about a double-quoted token that names no column (DQS is off here). */
const unknownQuoted = /no such column: "?(.*?)"? - should this be a string literal/

/**
 * Rewrites double-quoted tokens that name no column into string literals, as SQLite built with
 * double-quoted strings enabled (PocketBase's) reads them (see `rewriteQuotedStrings`).
 */
export function sqliteViewQuery(db: Db, query: string): Promise<string> {
  return rewriteQuotedStrings(db, query, (message) => unknownQuoted.exec(message)?.[1])
}
