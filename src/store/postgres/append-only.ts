/**
 * Append-only tables on PostgreSQL (the audit log): row triggers refuse every UPDATE and DELETE
 * on every connection (the SQL console, psql), and a statement trigger refuses TRUNCATE. There
 * is no setting a session could set to get past them (a custom setting is open to any SQL, even
 * inside a `WITH` of the console's write): the retention prune instead disables the row trigger
 * inside its own transaction (`ALTER TABLE … DISABLE TRIGGER`, transactional and under an
 * ACCESS EXCLUSIVE lock, so no other connection ever sees it disabled), deletes, enables it
 * again and commits. The SQL console cannot do the same: disabling a trigger of a frozen table
 * changes its catalog rows, and the console rolls back any such change (`console.ts`).
 */
import type { Db } from '../db.js'
import type { AppendOnlyTables } from '../dialect.js'
import { ident, raw, sql, type Sql } from '../sql.js'

/** The names of the guard of `table`: its trigger function and its two triggers. */
function names(table: string): { fn: string; rows: string; truncate: string } {
  return {
    fn: `svc_${table}_append_only`,
    rows: `svc_${table}_no_change`,
    truncate: `svc_${table}_no_truncate`,
  }
}

/** A SQL string literal of a svcbase constant (never input). */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}

/** PostgreSQL's append-only guard and the retention prune that alone gets past it. */
export const postgresAppendOnly: AppendOnlyTables = {
  guard(table: string): Sql[] {
    const n = names(table)
    const message = literal(`${table} is append-only: its rows cannot be updated or deleted`)
    // NB: the body is constant text; the table name is a svcbase constant, no input reaches it.
    const body = raw(`$svc$ BEGIN RAISE EXCEPTION ${message} USING ERRCODE = 'P0001'; END $svc$`)
    return [
      sql`CREATE OR REPLACE FUNCTION ${ident(n.fn)}() RETURNS trigger LANGUAGE plpgsql AS ${body}`,
      sql`CREATE OR REPLACE TRIGGER ${ident(n.rows)} BEFORE UPDATE OR DELETE ON ${ident(table)}
          FOR EACH ROW EXECUTE FUNCTION ${ident(n.fn)}()`,
      sql`CREATE OR REPLACE TRIGGER ${ident(n.truncate)} BEFORE TRUNCATE ON ${ident(table)}
          FOR EACH STATEMENT EXECUTE FUNCTION ${ident(n.fn)}()`,
    ]
  },
  async prune(db: Db, table: string, before: string): Promise<number> {
    const n = names(table)
    return db.transaction(async (tx) => {
      await tx.run(sql`ALTER TABLE ${ident(table)} DISABLE TRIGGER ${ident(n.rows)}`)
      const { changes } = await tx.run(sql`DELETE FROM ${ident(table)} WHERE created < ${before}`)
      await tx.run(sql`ALTER TABLE ${ident(table)} ENABLE TRIGGER ${ident(n.rows)}`)
      return changes
    })
  },
}
