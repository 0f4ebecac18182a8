/**
 * `svcbase typegen [--out FILE]`: the TypeScript types of the collections of `--dir`, read in
 * this process (the server may be running), printed or written whole. See docs/typegen.md.
 */
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { generateTypes, typegenCollections } from '../core/collections/typegen.js'
import { openApp } from './app.js'
import { defaultStoreHasData } from '../core/store-choice.js'

/** What the command needs from `cli.ts`: its usage error, and the flags it already read. */
export interface TypegenCommandContext {
  usageError: (message: string) => Error
  dir?: string
  out?: string
  encryptionKey?: string
}

/** Writes `text` to `file` whole or not at all: a temporary file beside it, renamed over it. */
function writeWhole(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(tmp, text)
    renameSync(tmp, file)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw new Error(`cannot write ${file}: ${(err as Error).message}`, { cause: err })
  }
}

/** `typegen`: refuses a data folder that does not exist rather than creating an empty one. */
export async function typegenCommand(
  positionals: string[],
  ctx: TypegenCommandContext,
): Promise<void> {
  if (positionals.length > 1)
    throw ctx.usageError(`typegen takes no arguments (got "${positionals.slice(1).join(' ')}")`)
  if (ctx.out === '') throw ctx.usageError('--out needs a file name')
  const dir = resolve(ctx.dir ?? './svc_data')
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new Error(`no data folder at ${dir} (give it with --dir)`)
  // NB: on PostgreSQL (--db / SVC_DATABASE_URL) the data is in a schema of the database: an
  // empty one is refused as a folder without data.db is, and nothing is created.
  const data = await defaultStoreHasData({ dataDir: dir })
  if (!data.found && process.env.SVC_DATABASE_URL)
    throw new Error(`no svcbase data in ${data.where} (give it with --dbSchema or --dir)`)
  if (!data.found)
    throw new Error(`no svcbase data in ${dir}: data.db is missing (give the folder with --dir)`)
  const app = await openApp({
    dataDir: dir,
    logger: { debug() {}, info() {}, warn: console.warn, error: console.error },
    encryptionKey: ctx.encryptionKey,
  })
  let text: string
  let count: number
  try {
    const all = app.collections.all()
    text = generateTypes(all)
    count = typegenCollections(all).length
  } finally {
    await app.close()
  }
  if (ctx.out === undefined) {
    process.stdout.write(text)
    console.error(`typegen: ${count} collections`)
    return
  }
  writeWhole(resolve(ctx.out), text)
  console.error(`typegen: ${count} collections written to ${ctx.out}`)
}
