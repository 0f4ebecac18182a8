/**
 * Append-only tables in SQLite (the audit log): triggers refuse every UPDATE and DELETE on any
 * connection. The DELETE trigger asks the function `audit_log_is_append_only(created)`, which
 * exists only on svcbase's own connections and answers "keep" unless a retention prune is
 * running on this thread right now; on any other connection (the SQL console's child process,
 * the sqlite3 shell) the function is missing, so the DELETE fails there too.
 */
import type Database from 'better-sqlite3'
import type { Db } from '../db.js'
import type { AppendOnlyTables } from '../dialect.js'
import { ident, raw, sql, type Sql } from '../sql.js'

const GUARD_FUNCTION = 'audit_log_is_append_only'

/**
 * The cutoff of the prune running at this moment, or null. It is set only for the span of one
 * synchronous statement (better-sqlite3 runs statements synchronously), so no other statement
 * of this process, whichever database it is on, can see it.
 */
let pruneCutoff: string | null = null

/** Adds the guard function to one of svcbase's connections. */
export function registerAppendOnlyFunction(conn: Database.Database): void {
  conn.function(GUARD_FUNCTION, { deterministic: false, varargs: false }, (created: unknown) =>
    pruneCutoff !== null && typeof created === 'string' && created < pruneCutoff ? 0 : 1,
  )
}

/** SQLite's append-only guard and the retention prune that alone gets past it. */
export const sqliteAppendOnly: AppendOnlyTables = {
  guard(table: string): Sql[] {
    const name = (suffix: string) => ident(`svc_${table}_${suffix}`)
    const message = `${table} is append-only: its rows cannot be updated or deleted`
    // NB: RAISE takes a string literal only; the table name is a svcbase constant, no input.
    const raise = raw(`SELECT RAISE(ABORT, '${message.replace(/'/g, "''")}');`)
    return [
      sql`CREATE TRIGGER IF NOT EXISTS ${name('no_update')} BEFORE UPDATE ON ${ident(table)}
          BEGIN ${raise} END`,
      sql`CREATE TRIGGER IF NOT EXISTS ${name('no_delete')} BEFORE DELETE ON ${ident(table)}
          WHEN ${raw(GUARD_FUNCTION)}(OLD.created) BEGIN ${raise} END`,
    ]
  },
  async prune(db: Db, table: string, before: string): Promise<number> {
    return db.transaction(async (tx) => {
      pruneCutoff = before
      let pending: Promise<{ changes: number }>
      try {
        // The statement runs synchronously inside this call; the cutoff is cleared right after.
        pending = tx.run(sql`DELETE FROM ${ident(table)} WHERE created < ${before}`)
      } finally {
        pruneCutoff = null
      }
      return (await pending).changes
    })
  },
}
