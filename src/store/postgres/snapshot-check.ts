/**
 * Checks a PostgreSQL snapshot folder (as `backupPostgres` writes it, say extracted from an
 * archive) before a restore replaces the live data with it.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { refuseOtherEngine } from '../snapshot-engines.js'
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

/**
 * Checks `dir`: only `data.pgdump` and optionally `auxiliary.pgdump` in it (a SQLite backup is
 * refused naming both engines), each a dump pg_restore reads (`pg_restore --list`) of exactly
 * one schema, and the main one holding svcbase's own tables with their data. Rejects with an
 * Error saying what is wrong.
 */
export async function checkPostgresSnapshot(dir: string): Promise<void> {
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
    if (known.get(name) !== 'main') continue
    const tables = new Set(toc.filter((e) => e.kind === 'TABLE').map((e) => e.name))
    const data = new Set(toc.filter((e) => e.kind === 'TABLE DATA').map((e) => e.name))
    const missing = OWN_TABLES.filter((t) => !tables.has(t) || !data.has(t))
    if (missing.length > 0) {
      throw new PostgresSnapshotError(
        `${name}: it is not a svcbase database (no ${missing.join(', ')} table)`,
      )
    }
  }
}
