/**
 * The first time svcbase opens a data folder written by PocketBase (or by an earlier svcbase,
 * whose `_collections` rows it rewrites in PocketBase's format): a backup in PocketBase's own
 * format under `backups/` first, the database files copied aside so a start that fails puts them
 * back (it changes nothing), and once the start succeeds a summary of what changed.
 */
import { copyFile, mkdir, readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Db } from '../store/db.js'
import { join as joinSql, sql } from '../store/sql.js'
import type { FolderInspection } from '../store/store.js'
import { writeArchive } from '../tools/archive-write.js'
import type { Logger } from './logger.js'

/** PocketBase's upgrade path for data from before 0.23, which svcbase does not read. */
export const LEGACY_POCKETBASE =
  'this data folder was written by PocketBase before v0.23, which svcbase does not read. ' +
  'Upgrade it with PocketBase first: start it once with PocketBase v0.23 or later, which migrates ' +
  'the data (https://pocketbase.io/v023upgrade/), then serve the folder with svcbase.'

/**
 * PocketBase 0.40.4's own (Go) migrations, which make the system schema svcbase also makes. A new
 * folder records them as applied, so PocketBase opening it does not try to make that schema again.
 */
export const POCKETBASE_SYSTEM_MIGRATIONS = [
  '1640988000_aux_init.go',
  '1640988000_init.go',
  '1717233556_v0.23_migrate.go',
  '1717233557_v0.23_migrate2.go',
  '1717233558_v0.23_migrate3.go',
  '1717233559_v0.23_migrate4.go',
  '1763020353_update_default_auth_alert_templates.go',
  '1778828400_normalize_indexes.go',
] as const

/**
 * Records PocketBase's system migrations as applied in a folder PocketBase never opened (no
 * `1640988000_init.go` row). A folder PocketBase made keeps its own rows: an older PocketBase's
 * lack the newer migrations, which PocketBase must still run there.
 */
export async function recordPocketBaseMigrations(db: Db): Promise<void> {
  const seen = await db.get(
    sql`SELECT 1 AS found FROM _migrations WHERE file = ${'1640988000_init.go'}`,
  )
  if (seen) return
  const applied = Date.now() * 1000
  await db.run(
    sql`INSERT INTO _migrations (file, applied) VALUES ${joinSql(
      POCKETBASE_SYSTEM_MIGRATIONS.map((f) => sql`(${f}, ${applied})`),
    )} ON CONFLICT (file) DO NOTHING`,
  )
}

/** A first open in progress. */
export interface FirstOpen {
  inspection: FolderInspection
  /** The backup archive written before anything changed. */
  backup: string
  /** Puts the copied database files back (after the store closed): the folder as it was. */
  rollback(): Promise<void>
  /** Drops the copies and says what changed, given the collections the app has now. */
  done(collections: readonly string[]): Promise<void>
}

const stamp = (): string => new Date().toISOString().replace(/\D/g, '').slice(0, 14)

/** The files at the root of `dir` a PocketBase backup holds (all but folders and temp files). */
async function rootFiles(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const name of (await readdir(dir)).sort()) {
    if (name.endsWith('-shm') || name.startsWith('.')) continue
    if ((await stat(join(dir, name))).isFile()) out.push(join(dir, name))
  }
  return out
}

/**
 * Starts the first open of `dir` when it needs one (a PocketBase folder, or svcbase's in its
 * earlier format), else returns null. Throws for PocketBase data from before 0.23.
 */
export async function beginFirstOpen(
  inspection: FolderInspection | undefined,
  dir: string,
  logger: Logger,
): Promise<FirstOpen | null> {
  if (!inspection || inspection.kind === 'empty') return null
  if (inspection.kind === 'pocketbase-legacy') throw new Error(LEGACY_POCKETBASE)
  if (inspection.kind === 'svcbase' && !inspection.legacyFormat) return null
  const who = inspection.kind === 'pocketbase' ? 'PocketBase' : 'an earlier svcbase'
  const backups = join(dir, 'backups')
  const madeBackups = (await mkdir(backups, { recursive: true })) !== undefined
  const backup = join(backups, `pb_backup_before_svcbase_${stamp()}.zip`)
  logger.info(`this data folder was written by ${who}: backing it up before svcbase changes it`, {
    backup,
  })
  await writeArchive(backup, await rootFiles(dir), join(dir, 'storage'))
  const aside = join(backups, `.svc_first_open_${stamp()}`)
  await mkdir(aside, { recursive: true })
  for (const f of inspection.files) await copyFile(join(dir, f), join(aside, f))
  const databases = [...new Set(inspection.files.map((f) => f.replace(/-wal$/, '')))]
  return {
    inspection,
    backup,
    async rollback() {
      for (const db of databases) {
        for (const f of [db, `${db}-wal`, `${db}-shm`]) await rm(join(dir, f), { force: true })
      }
      for (const f of inspection.files) await copyFile(join(aside, f), join(dir, f))
      await rm(aside, { recursive: true, force: true })
      // Nothing changed, so the backup of it goes too (with the folder made for it).
      await rm(backup, { force: true })
      if (madeBackups) await rm(backups, { recursive: true, force: true })
      logger.warn('the start failed: the data folder is as it was before')
    },
    async done(collections) {
      await rm(aside, { recursive: true, force: true })
      const before = new Set(inspection.collections)
      const added = collections.filter((c) => !before.has(c))
      logger.info(`svcbase changed this ${who} data folder (backup: ${backup})`, {
        collectionsRewritten:
          inspection.kind === 'svcbase'
            ? 'every _collections row, into PocketBase’s format (fields flat, options at the top level)'
            : 'none',
        systemCollectionsAdded: added,
        alsoAdded:
          'svcbase’s system tables and _params rows, a __sort_<id>_created index per collection with a ' +
          'created field, and _mv_* junction tables (kept by triggers) for multi-valued fields',
      })
    },
  }
}
