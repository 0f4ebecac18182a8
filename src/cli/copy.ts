/**
 * `svcbase copy --from=DIR|URL --to=DIR|URL`: moves an app's data between stores (SQLite to
 * PostgreSQL when it outgrows one machine, or back). The source app is opened without serving;
 * the target must hold no svcbase data. The target's collections are made by the schema apply
 * engine (so its own SchemaManager creates tables, indexes and views), then every row of every
 * base and auth collection, the `_params` and `_migrations` rows and (unless `--noLogs`) the
 * `_logs` are copied table by table, one target transaction per table (`core/copy-data.ts`).
 * Any failure drops what was made, leaving the target empty. A folder source (svcbase's or
 * PocketBase's `pb_data`) is read from a copy of its databases, so it is never changed. Files
 * under `storage/` are not copied. See docs/postgresql.md "Moving an app from SQLite to
 * PostgreSQL".
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join as joinPath, resolve } from 'node:path'
import type { App, AppConfig } from '../core/app.js'
import { describeSchemaError } from './schema.js'
import { applySchema, exportSchema } from '../core/collections/apply.js'
import { databaseOf, type Collection } from '../core/collections/model.js'
import {
  COLLECTIONS_COLUMNS,
  MIGRATIONS_COLUMNS,
  PARAMS_COLUMNS,
  collectionColumns,
  copyRows,
  countRows,
  type CopyTable,
} from '../core/copy-data.js'
import { newApp } from '../core/create-app.js'
import { openApp } from './app.js'
import { ident, join, param, sql } from '../store/sql.js'

/** From this many rows on, a table's copy prints a running count every this many rows. */
export const PROGRESS_EVERY = 10_000

/** The collection of the request logs (the auxiliary database), skipped with `--noLogs`. */
const LOGS = '_logs'

/** What the command needs from `cli.ts`: its usage error and the flags it read. */
export interface CopyCommandContext {
  usageError: (message: string) => Error
  from?: string
  to?: string
  fromSchema?: string
  toSchema?: string
  noLogs: boolean
  encryptionKey?: string
}

/** One side of the copy: a data folder (SQLite) or a PostgreSQL URL and schema. */
interface Side {
  label: string
  config: AppConfig
  /**
   * A temporary data folder: a PostgreSQL side's (its `storage/`, never used here), or the copy of
   * a folder source's databases the copy reads.
   */
  scratch?: string
}

const quiet = { debug() {}, info() {}, warn: console.warn, error: console.error }

function isUrl(place: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(place)
}

/** Copies the database files of a folder side into a scratch folder (its `scratch`). */
function databasesCopy(s: Side): string {
  s.scratch = mkdtempSync(joinPath(tmpdir(), 'svcbase-copy-source-'))
  for (const name of ['data.db', 'data.db-wal', 'auxiliary.db', 'auxiliary.db-wal']) {
    const file = joinPath(s.config.dataDir, name)
    if (existsSync(file)) copyFileSync(file, joinPath(s.scratch, name))
  }
  return s.scratch
}

/** A side's app config; a URL that is not PostgreSQL's is refused by the store choice. */
function side(place: string, schema: string | undefined, key: string | undefined): Side {
  if (isUrl(place)) {
    const scratch = mkdtempSync(joinPath(tmpdir(), 'svcbase-copy-'))
    const shown = place.replace(/\/\/[^@/]*@/, '//…@')
    return {
      label: `${shown} (schema ${schema ?? 'public'})`,
      scratch,
      config: {
        dataDir: scratch,
        databaseUrl: place,
        databaseSchema: schema ?? 'public',
        encryptionKey: key,
        logger: quiet,
      },
    }
  }
  const dir = resolve(place)
  // NB: an empty URL picks SQLite whatever SVC_DATABASE_URL says.
  return {
    label: dir,
    config: { dataDir: dir, databaseUrl: '', encryptionKey: key, logger: quiet },
  }
}

/**
 * How many collections and `_params` rows the store of `config` holds (0 when it has none).
 * With `migrate` the system tables are made first (the target); without, missing tables
 * count as none (the source, never written to here).
 */
async function svcbaseRows(config: AppConfig, migrate: boolean): Promise<number> {
  const store = newApp(config).store
  await store.open()
  try {
    if (migrate) await store.migrate()
    const db = store.database('main')
    return (await countRows(db, '_collections')) + (await countRows(db, '_params'))
  } catch (err) {
    if (migrate) throw err
    return 0
  } finally {
    await store.close()
  }
}

/** The tables to copy rows of, in the source app: every base and auth collection. */
function tablesOf(source: App, noLogs: boolean): Collection[] {
  return source.collections
    .all()
    .filter((c) => c.type !== 'view' && !(noLogs && c.name === LOGS))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/**
 * Makes the target's collections those of the source: the apply engine creates and updates
 * tables, indexes and views; then collections the source lacks are dropped and the stored
 * definitions of tables are replaced by the source's rows as they are (ids, timestamps, and
 * the auth secrets an export leaves out). Views keep the definition derived on the target.
 */
async function copyCollections(source: App, target: App): Promise<void> {
  const payload = exportSchema(source).collections
  await applySchema(target, payload, { force: true })
  const ids = new Set(source.collections.all().map((c) => c.id))
  const names = new Set(source.collections.all().map((c) => c.name.toLowerCase()))
  const views = source.collections.all().filter((c) => c.type === 'view')
  await target.runInTransaction(async (tx) => {
    for (const c of tx.collections.all()) {
      if (ids.has(c.id) || names.has(c.name.toLowerCase())) continue
      if (c.type === 'view') await tx.schema.dropView(tx.dbFor(c), c.name)
      else await tx.schema.dropTable(tx.dbFor(c), c.name)
    }
    const keep = views.map((v) => param(v.id))
    await tx.db.run(
      keep.length > 0
        ? sql`DELETE FROM _collections WHERE id NOT IN (${join(keep)})`
        : sql`DELETE FROM _collections`,
    )
    await copyRows(source.db, tx.db, {
      table: '_collections',
      columns: COLLECTIONS_COLUMNS,
      order: 'id',
      where: sql`type <> ${'view'}`,
    })
  })
}

/** Copies one table in one target transaction (emptied first); prints its progress. */
async function copyTable(source: App, target: App, spec: CopyTable, db: 'main' | 'auxiliary') {
  const from = db === 'main' ? source.db : source.auxDb
  const into = db === 'main' ? target.db : target.auxDb
  const copied = await into.transaction(async (tx) => {
    await tx.run(sql`DELETE FROM ${ident(spec.table)}`)
    return copyRows(from, tx, spec, (n) => {
      if (n % PROGRESS_EVERY === 0) console.error(`  ${spec.table}: ${n} rows…`)
    })
  })
  console.error(`${spec.table}: ${copied} rows`)
  return copied
}

/**
 * Undoes a failed copy: drops every table and view of the target's collections and empties
 * `_collections` and `_params`, so the target holds no svcbase data again.
 */
async function undo(target: App, extra: Collection[]): Promise<void> {
  const all = [...target.collections.all(), ...extra]
  for (const c of all.filter((x) => x.type === 'view'))
    await target.schema.dropView(target.dbFor(c), c.name).catch(() => {})
  for (const c of all.filter((x) => x.type !== 'view')) {
    const db = databaseOf(c) === 'main' ? target.db : target.auxDb
    await target.schema.dropTable(db, c.name).catch(() => {})
  }
  await target.db.run(sql`DELETE FROM _collections`)
  await target.db.run(sql`DELETE FROM _params`)
  await target.db.run(sql`DELETE FROM _migrations`)
}

/** `svcbase copy`: see the top of this file. Prints progress on stderr and a summary. */
export async function copyCommand(positionals: string[], ctx: CopyCommandContext): Promise<void> {
  if (positionals.length > 1) throw ctx.usageError('copy takes no arguments, only flags')
  if (!ctx.from) throw ctx.usageError('copy needs --from=DIR or --from=postgres://…')
  if (!ctx.to) throw ctx.usageError('copy needs --to=DIR or --to=postgres://…')
  if (ctx.fromSchema !== undefined && !isUrl(ctx.from))
    throw ctx.usageError('--fromSchema goes with a PostgreSQL --from URL')
  if (ctx.toSchema !== undefined && !isUrl(ctx.to))
    throw ctx.usageError('--toSchema goes with a PostgreSQL --to URL')
  const from = side(ctx.from, ctx.fromSchema, ctx.encryptionKey)
  const to = side(ctx.to, ctx.toSchema, ctx.encryptionKey)
  try {
    if (from.label === to.label) throw new Error('copy: --from and --to are the same place')
    if (!isUrl(ctx.from) && !existsSync(from.config.dataDir))
      throw new Error(`copy: ${from.label} does not exist`)
    // NB: as typegen does, so a mistyped folder is never given an empty database.
    if (!isUrl(ctx.from) && !existsSync(joinPath(from.config.dataDir, 'data.db')))
      throw new Error(`copy: no svcbase data in ${from.label}: data.db is missing`)
    // The source folder is read from a copy of its databases, so it is never changed (a
    // PocketBase folder is not adopted by the copy; an earlier svcbase one is not rewritten).
    if (!isUrl(ctx.from)) from.config = { ...from.config, dataDir: databasesCopy(from) }
    if ((await svcbaseRows(from.config, false)) === 0)
      throw new Error(`copy: ${from.label} holds no svcbase data`)
    if ((await svcbaseRows(to.config, true)) > 0)
      throw new Error(
        `copy: ${to.label} already holds svcbase data (collections or settings); the target must be empty, nothing was written`,
      )
    await run(from, to, ctx.noLogs)
  } finally {
    for (const s of [from, to]) if (s.scratch) rmSync(s.scratch, { recursive: true, force: true })
  }
}

async function run(from: Side, to: Side, noLogs: boolean): Promise<void> {
  const source = await openApp(from.config)
  try {
    const target = await openApp(to.config)
    const tables = tablesOf(source, noLogs)
    let rows = 0
    try {
      console.error(`copying ${from.label} to ${to.label}`)
      await copyCollections(source, target)
      console.error(`collections: ${source.collections.all().length}`)
      for (const c of tables) {
        rows += await copyTable(
          source,
          target,
          { table: c.name, columns: collectionColumns(c), order: 'rowid' },
          databaseOf(c),
        )
      }
      const params = await copyTable(
        source,
        target,
        { table: '_params', columns: PARAMS_COLUMNS, order: 'id' },
        'main',
      )
      // The migrations already applied, so the target does not run them again.
      await copyTable(
        source,
        target,
        { table: '_migrations', columns: MIGRATIONS_COLUMNS, order: 'file' },
        'main',
      )
      console.log(
        `copied ${source.collections.all().length} collections, ${rows} records in ${tables.length} tables and ${params} params${noLogs ? ' (request logs left out)' : ''}; files under storage/ are not copied`,
      )
    } catch (err) {
      await undo(target, source.collections.all()).catch((e: unknown) =>
        console.error(`copy: cleaning the target failed too: ${String(e)}`),
      )
      throw new Error(`copy failed, the target was left empty: ${describeSchemaError(err)}`, {
        cause: err,
      })
    } finally {
      await target.close()
    }
  } finally {
    await source.close()
  }
}
