/**
 * Which store an app opens when its config names none: PostgreSQL when a database URL is given
 * (`AppConfig.databaseUrl`, else `SVC_DATABASE_URL`), else SQLite files in `dataDir`.
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'
import {
  createPostgresStore,
  createSqliteStore,
  postgresHasData,
  type Store,
} from '../store/index.js'
import type { AppConfig } from './app.js'

/** The `databaseSchema` value that derives one schema per data folder. */
export const DIR_SCHEMA = '@dir'

/**
 * The schema `@dir` stands for: `svc_` and a hash of the resolved data folder, so each folder
 * gets its own schema on one database and finds it again after a restart.
 */
export function dirSchema(dataDir: string): string {
  return `svc_${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 24)}`
}

/**
 * Whether the store `defaultStore(config)` would open holds svcbase's data, without creating
 * anything: `data.db` in the data folder on SQLite, svcbase's tables in the schema on
 * PostgreSQL. `where` says where the data was looked for (for a message).
 */
export async function defaultStoreHasData(
  config: AppConfig,
): Promise<{ found: boolean; where: string }> {
  const pgChoice = postgresChoice(config)
  if (!pgChoice) {
    const file = join(config.dataDir, 'data.db')
    return { found: existsSync(file), where: file }
  }
  const found = await postgresHasData(pgChoice.url, pgChoice.schema)
  return { found, where: `the PostgreSQL schema ${pgChoice.schema}` }
}

/** `SVC_DATABASE_PREPARED`: whether PostgreSQL statements run again are prepared (default on). */
function preparedChoice(): boolean {
  const value = (process.env.SVC_DATABASE_PREPARED ?? '').trim().toLowerCase()
  if (value === '' || value === 'on' || value === 'true' || value === '1') return true
  if (value === 'off' || value === 'false' || value === '0') return false
  throw new Error(`SVC_DATABASE_PREPARED must be on or off, not "${value}"`)
}

/** The database URL and schema `config` picks, or null for SQLite; throws on bad values. */
function postgresChoice(config: AppConfig): { url: string; schema: string } | null {
  const url = config.databaseUrl ?? process.env.SVC_DATABASE_URL
  if (url === undefined || url === '') return null
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new Error(
      'the database URL must start with postgres:// or postgresql:// (--db, SVC_DATABASE_URL)',
    )
  }
  const named = config.databaseSchema ?? process.env.SVC_DATABASE_SCHEMA ?? 'public'
  const schema = named === DIR_SCHEMA ? dirSchema(config.dataDir) : named
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,58}$/.test(schema)) {
    throw new Error(
      `the database schema "${schema}" must be a letter or _ then letters, digits or _ (at most 59) (--dbSchema, SVC_DATABASE_SCHEMA)`,
    )
  }
  return { url, schema }
}

/** The store for `config`: see the module comment. Throws on a URL that is not PostgreSQL's. */
export function defaultStore(config: AppConfig, verbose?: (sql: string) => void): Store {
  const choice = postgresChoice(config)
  if (!choice) return createSqliteStore({ dir: config.dataDir, verbose })
  const { url, schema } = choice
  // Instances on one machine and one data folder (`serve --workers`) share their local files.
  const place = createHash('sha256')
    .update(`${hostname()}\0${resolve(config.dataDir)}`)
    .digest('hex')
    .slice(0, 24)
  return createPostgresStore({ url, schema, verbose, place, prepared: preparedChoice() })
}
