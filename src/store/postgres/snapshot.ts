/**
 * Snapshots of a PostgreSQL store: `pg_dump` of each schema in pg_dump's custom format, all
 * taken in ONE snapshot. A connection of our own opens a `REPEATABLE READ` transaction and
 * exports its snapshot (`pg_export_snapshot()`); each `pg_dump --snapshot=<id>` then reads
 * exactly what that transaction sees, so the main and auxiliary dumps agree with each other and
 * hold only committed work, while writers keep writing.
 */
import { join } from 'node:path'
import pg from 'pg'
import { DbError } from '../db.js'
import type { DatabaseName } from '../store.js'
import { connectionArgs, dumpFileNames, runPgTool } from './pg-tools.js'

/** Where a store's data is: the database URL and the schema of each database. */
export interface PostgresLocation {
  url: string
  schemas: Record<DatabaseName, string>
}

/** Every database, `main` first. */
const names: readonly DatabaseName[] = ['main', 'auxiliary']

/**
 * Writes `data.pgdump` and `auxiliary.pgdump` (one schema each, custom format, no owners or
 * privileges) into `dir` from one repeatable-read snapshot; resolves to their paths, main first.
 * Each restores with `pg_restore` into an empty database or schema.
 */
export async function backupPostgres(opts: PostgresLocation, dir: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: opts.url })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    const { rows } = await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')
    const snapshot = rows[0]!.id
    const { dbname, env } = connectionArgs(opts.url)
    const paths: string[] = []
    // One after the other: each is a full read of its schema, and both use the one snapshot.
    for (const name of names) {
      const target = join(dir, dumpFileNames[name])
      await runPgTool(
        'pg_dump',
        [
          '--format=custom',
          `--snapshot=${snapshot}`,
          `--schema="${opts.schemas[name]}"`,
          '--no-owner',
          '--no-privileges',
          `--file=${target}`,
          `--dbname=${dbname}`,
        ],
        env,
      )
      paths.push(target)
    }
    await client.query('COMMIT')
    return paths
  } catch (err) {
    if (err instanceof Error && err.name === 'PgToolError') throw err
    const message = err instanceof Error ? err.message : String(err)
    throw new DbError(`snapshot failed: ${message}`, err)
  } finally {
    await client.end().catch(() => {})
  }
}
