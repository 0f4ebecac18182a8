/**
 * `svcbase migrate up | down [n] | create NAME | collections | history-sync`: PocketBase's
 * `migrate` command over the `pb_migrations` folder (`--migrationsDir`, default
 * `<dir>/../pb_migrations`), with PocketBase's words. `down`, `create` and `collections` ask
 * `(y/N)` on the terminal as PocketBase does; `--force` answers yes.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { join, relative, resolve } from 'node:path'
import { openApp } from './app.js'
import type { App } from '../core/app.js'
import { pocketbaseJSON } from '../features/hooks/pb/migrate/automigrate.js'
import {
  applyMigrations,
  lastApplied,
  revertMigrations,
  syncHistory,
} from '../features/hooks/pb/migrate/runner.js'

/** What the command needs from the command line. */
export interface MigrateContext {
  dir: string | undefined
  migrationsDir: string | undefined
  hooksDir: string | undefined
  force: boolean
  encryptionKey: string | undefined
  usageError: (message: string) => Error
}

/** PocketBase's default migrations folder: `pb_migrations` beside the data folder. */
export function defaultMigrationsDir(dataDir: string): string {
  return resolve(dataDir, '..', 'pb_migrations')
}

/** The empty migration `create` writes (PocketBase's template). */
const TEMPLATE = `/// <reference path="../pb_data/types.d.ts" />
migrate((app) => {
  // add up queries...
}, (app) => {
  // add down queries...
})
`

/** PocketBase's file name part of a migration name: snake_cased, lower case. */
function snakeName(name: string): string {
  return name
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase()
}

/** The `collections` snapshot migration's text. */
function snapshotMigration(app: App): string {
  const json = JSON.stringify(app.collections.all().map(pocketbaseJSON), null, 2).replace(
    /\n/g,
    '\n  ',
  )
  return `/// <reference path="../pb_data/types.d.ts" />
migrate((app) => {
  const snapshot = ${json};

  return app.importCollections(snapshot, false);
}, (app) => {
  return null;
})
`
}

/** Asks `question (y/N)` on stdin; true only for y/yes. */
async function confirm(question: string, force: boolean): Promise<boolean> {
  if (force) return true
  process.stderr.write(`${question} (y/N) `)
  const rl = createInterface({ input: process.stdin })
  const line = await new Promise<string>((done) => {
    rl.once('line', done)
    rl.once('close', () => done(''))
  })
  rl.close()
  return ['y', 'yes'].includes(line.trim().toLowerCase())
}

/** Writes a new migration file `<unix seconds>_<name>.js` after asking. */
async function writeMigration(dir: string, name: string, text: string, force: boolean) {
  const file = join(dir, `${Math.floor(Date.now() / 1000)}_${name}.js`)
  const shown = relative(process.cwd(), file) || file
  if (!(await confirm(`Do you really want to create migration "${shown}"?`, force))) {
    console.log('The command has been cancelled')
    return
  }
  mkdirSync(dir, { recursive: true })
  writeFileSync(file, text, { flag: 'wx' })
  console.log(`Successfully created file "${shown}"`)
}

/** Runs `svcbase migrate …` (`positionals[0]` is "migrate"). */
export async function migrateCommand(positionals: string[], ctx: MigrateContext): Promise<void> {
  // As PocketBase, `migrate` alone is `migrate up`.
  const [, action = 'up', arg, ...extra] = positionals
  const actions = ['up', 'down', 'create', 'collections', 'history-sync']
  if (!actions.includes(action)) throw ctx.usageError(`unsupported command: "${action}"`)
  if (extra.length > 0 || (arg !== undefined && !['down', 'create'].includes(action)))
    throw ctx.usageError(`too many arguments for "migrate ${action}"`)
  let count = 1
  if (action === 'down' && arg !== undefined) {
    if (!/^-?\d+$/.test(arg))
      throw ctx.usageError(
        `invalid number of migrations to revert "${arg}": expected a whole number`,
      )
    count = Number(arg)
  }
  if (action === 'create' && (arg === undefined || snakeName(arg) === ''))
    throw ctx.usageError('missing migration file name')

  const dataDir = resolve(ctx.dir ?? './svc_data')
  const dir = ctx.migrationsDir ? resolve(ctx.migrationsDir) : defaultMigrationsDir(dataDir)
  const hooksDir = resolve(ctx.hooksDir ?? './svc_hooks')
  if (action === 'create') return writeMigration(dir, snakeName(arg!), TEMPLATE, ctx.force)

  const app = await openApp({
    dataDir,
    logger: { debug() {}, info() {}, warn: console.warn, error: console.error },
    encryptionKey: ctx.encryptionKey,
  })
  try {
    if (action === 'up') {
      const applied = await applyMigrations(app, dir, hooksDir)
      if (applied.length === 0) console.log('No new migrations to apply.')
      for (const f of applied) console.log(`Applied ${f}`)
    } else if (action === 'down') {
      const files = await lastApplied(app, dir, count)
      if (files.length === 0) {
        console.log('No migrations to revert.')
        return
      }
      process.stderr.write(`\n${files.join('\n')}\n`)
      const question = `Do you really want to revert the last ${files.length} applied migration(s)?`
      if (!(await confirm(question, ctx.force))) {
        console.log('The command has been cancelled')
        return
      }
      for (const f of await revertMigrations(app, dir, count, hooksDir))
        console.log(`Reverted ${f}`)
    } else if (action === 'collections') {
      await writeMigration(dir, 'collections_snapshot', snapshotMigration(app), ctx.force)
    } else {
      const dropped = await syncHistory(app, dir)
      for (const f of dropped) console.log(`Removed ${f} from the _migrations table`)
      console.log('The _migrations table was synced with the available migrations.')
    }
  } finally {
    await app.close()
  }
}
