/**
 * What a SQLite data folder holds before the store first opens it, read without writing: nothing
 * yet, a folder PocketBase wrote (0.23 and later, or older), or svcbase's own (and whether its
 * `_collections` rows are still in svcbase's earlier format).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { FolderInspection } from '../store.js'

/** The database files of a folder, with their WAL files, that exist. */
function presentFiles(dir: string, names: readonly string[]): string[] {
  return names.flatMap((n) => [n, `${n}-wal`]).filter((n) => existsSync(join(dir, n)))
}

/** Inspects `dir` (its `data.db` read only, opened and closed here). */
export function inspectSqliteFolder(dir: string, names: readonly string[]): FolderInspection {
  const files = presentFiles(dir, names)
  const main = join(dir, names[0]!)
  if (!existsSync(main)) return { kind: 'empty', legacyFormat: false, collections: [], files }
  const db = new Database(main, { readonly: true, fileMustExist: true })
  try {
    const tables = new Set(
      db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => r.name),
    )
    if (!tables.has('_collections'))
      return { kind: 'empty', legacyFormat: false, collections: [], files }
    const columns = db
      .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('_collections')")
      .all()
      .map((r) => r.name)
    // PocketBase before 0.23 kept a collection's fields in `schema` (and superusers in `_admins`).
    if (!columns.includes('fields'))
      return { kind: 'pocketbase-legacy', legacyFormat: false, collections: [], files }
    const collections = db
      .prepare<[], { name: string }>('SELECT name FROM _collections ORDER BY name')
      .all()
      .map((r) => r.name)
    const ours =
      tables.has('_params') &&
      db.prepare("SELECT 1 FROM _params WHERE id = 'svc_system_versions'").get() !== undefined
    // svcbase's earlier rows: options nested in each field, auth options under `authOptions`.
    const legacy = db
      .prepare(
        `SELECT 1 FROM _collections WHERE json_valid(options) AND json_valid(fields) AND (
           json_type(options, '$.authOptions') = 'object'
           OR EXISTS (SELECT 1 FROM json_each(fields) WHERE json_type(value, '$.options') = 'object'))
         LIMIT 1`,
      )
      .get()
    return {
      kind: ours ? 'svcbase' : 'pocketbase',
      legacyFormat: legacy !== undefined,
      collections,
      files,
    }
  } finally {
    db.close()
  }
}
