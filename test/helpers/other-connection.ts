/**
 * A connection of another program to a test app's database (the sqlite3 shell, psql, a
 * script), on whichever engine the run uses: SQLite files in the data folder, or the schema of
 * the data folder on PostgreSQL (the PostgreSQL pass sets `SVC_DATABASE_URL` and `@dir`).
 */
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { dirSchema } from '../../src/core/store-choice.js'

/** True when the test apps run on PostgreSQL. */
export const onPostgres = Boolean(process.env.SVC_DATABASE_URL)

/** Statements on another connection; `?` placeholders on both engines. */
export interface OtherConnection {
  run(text: string, params?: unknown[]): Promise<void>
  all<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>
  close(): Promise<void>
}

/** `?` placeholders as PostgreSQL's `$n` (the tests' texts hold no `?` elsewhere). */
function numbered(text: string): string {
  let n = 0
  return text.replace(/\?/g, () => `$${++n}`)
}

/** Opens another connection to the `main` or `auxiliary` database of the app of `dir`. */
export async function otherConnection(
  dir: string,
  database: 'main' | 'auxiliary' = 'main',
): Promise<OtherConnection> {
  if (!onPostgres) {
    const db = new Database(join(dir, database === 'main' ? 'data.db' : 'auxiliary.db'))
    return {
      run: async (text, params = []) => void db.prepare(text).run(...params),
      all: async <T>(text: string, params: unknown[] = []) =>
        db.prepare(text).all(...params) as T[],
      close: async () => void db.close(),
    }
  }
  const schema =
    process.env.SVC_DATABASE_SCHEMA === '@dir' || !process.env.SVC_DATABASE_SCHEMA
      ? dirSchema(dir)
      : process.env.SVC_DATABASE_SCHEMA
  const name = database === 'main' ? schema : schema === 'public' ? 'svc_aux' : `${schema}_aux`
  const client = new pg.Client({
    connectionString: process.env.SVC_DATABASE_URL,
    options: `-c search_path="${name}"`,
  })
  await client.connect()
  return {
    run: async (text, params = []) => void (await client.query(numbered(text), params)),
    all: async <T>(text: string, params: unknown[] = []) =>
      (await client.query(numbered(text), params)).rows as T[],
    close: () => client.end(),
  }
}
