/**
 * Checks a PostgreSQL snapshot folder (as `backupPostgres` writes it, say extracted from an
 * archive) before a restore replaces the live data with it.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { refuseOtherEngine } from '../snapshot-engines.js'
import type { DatabaseName } from '../store.js'
import { dumpedSchema, dumpFileNames, parseToc, runPgTool } from './pg-tools.js'

/** The tables every svcbase main schema has (system tables and the superusers' collection). */
const OWN_TABLES = ['_collections', '_params', '_superusers']

/** A snapshot folder the store refuses, with the reason (for the client). */
export class PostgresSnapshotError extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'SnapshotError'
  }
}

/** The database a snapshot would be restored into, and the live schema of each role there. */
export interface SnapshotTarget {
  url: string
  schemas: Record<DatabaseName, string>
}

/**
 * Checks `dir`: only `data.pgdump` and optionally `auxiliary.pgdump` in it (a SQLite backup is
 * refused naming both engines), each a dump pg_restore reads (`pg_restore --list`) of exactly
 * one schema, and the main one holding svcbase's own tables with their data. With a `target`,
 * a dump taken from another schema than the live one of its role is refused when a schema of
 * that name exists in the target database (the restore would have to put it aside first), so
 * the refusal comes before the restore is accepted. Rejects with an Error saying what is wrong.
 */
export async function checkPostgresSnapshot(dir: string, target?: SnapshotTarget): Promise<void> {
  /** The schema each dump restores into, when it is not the live one of its role. */
  const renamed: string[] = []
  const present = readdirSync(dir)
  refuseOtherEngine(present, 'PostgreSQL')
  const known = new Map(Object.entries(dumpFileNames).map(([role, file]) => [file, role]))
  for (const name of present) {
    if (!known.has(name)) {
      throw new PostgresSnapshotError(`unexpected file "${name}" next to the databases`)
    }
    if (!statSync(join(dir, name)).isFile()) {
      throw new PostgresSnapshotError(`"${name}" is not a file`)
    }
  }
  if (!present.includes(dumpFileNames.main)) {
    throw new PostgresSnapshotError(`no ${dumpFileNames.main} in it`)
  }
  for (const name of present) {
    let listing: string
    try {
      listing = await runPgTool('pg_restore', ['--list', join(dir, name)])
    } catch (err) {
      throw new PostgresSnapshotError(
        `${name}: it is not a readable pg_dump archive (${String(err)})`,
      )
    }
    const toc = parseToc(listing)
    const schema = dumpedSchema(toc)
    if (schema === null) throw new PostgresSnapshotError(`${name}: it holds no schema`)
    // Objects outside any schema (extensions, event triggers, …) never come from our dumps.
    const global = toc.find(
      (e) =>
        e.schema === '-' &&
        e.kind !== 'SCHEMA' &&
        !(e.kind === 'COMMENT' && e.name.startsWith('SCHEMA ')),
    )
    if (global) {
      throw new PostgresSnapshotError(
        `${name}: it holds an object outside its schema (${global.kind} ${global.name})`,
      )
    }
    const foreign = toc.find((e) => e.schema !== '-' && e.schema !== schema)
    if (foreign) {
      throw new PostgresSnapshotError(
        `${name}: it holds more than one schema (${schema}, ${foreign.schema})`,
      )
    }
    const role = known.get(name) as DatabaseName
    if (target && schema !== target.schemas[role]) renamed.push(schema)
    if (role !== 'main') continue
    const tables = new Set(toc.filter((e) => e.kind === 'TABLE').map((e) => e.name))
    const data = new Set(toc.filter((e) => e.kind === 'TABLE DATA').map((e) => e.name))
    const missing = OWN_TABLES.filter((t) => !tables.has(t) || !data.has(t))
    if (missing.length > 0) {
      throw new PostgresSnapshotError(
        `${name}: it is not a svcbase database (no ${missing.join(', ')} table)`,
      )
    }
  }
  if (target && renamed.length > 0) await refuseTakenSchemas(target.url, renamed)
}

/** Refuses when one of `names` is a schema of the database at `url` (read only, nothing made). */
async function refuseTakenSchemas(url: string, names: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  let taken: string | undefined
  try {
    await client.connect()
    const r = await client.query<{ nspname: string }>(
      'SELECT nspname FROM pg_namespace WHERE nspname = ANY($1::text[]) ORDER BY nspname',
      [names],
    )
    taken = r.rows[0]?.nspname
  } finally {
    await client.end().catch(() => {})
  }
  if (taken !== undefined) {
    throw new PostgresSnapshotError(
      `the backup's schema ${taken} exists already in the database: drop or rename it first`,
    )
  }
}
