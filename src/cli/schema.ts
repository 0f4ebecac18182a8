/**
 * `svcbase schema export|diff|apply` (schema in version control) and `serve --automigrate`,
 * over the engine of `core/collections/apply.ts` on an app opened in this process. See
 * docs/schema.md and docs/cli.md.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { App } from '../core/app.js'
import {
  applySchema,
  exportSchema,
  schemaPayloadItems,
  type ApplyResult,
  type PlanDetail,
} from '../core/collections/apply.js'
import { openApp as openCliApp } from './app.js'
import { ApiError, type ValidationErrors } from '../core/errors.js'

/** The file `serve --automigrate` applies, relative to the working directory. */
export const AUTOMIGRATE_FILE = 'svc_schema.json'

/** From this many collections to save on, `schema apply` prints one progress line per save. */
export const PROGRESS_FROM = 10

/** What the command needs from `cli.ts`: its usage error, and the flags it already read. */
export interface SchemaCommandContext {
  /** Builds the command line's usage error (exit status 2, the usage printed). */
  usageError: (message: string) => Error
  dir?: string
  force: boolean
  encryptionKey?: string
}

/** An error of `schema diff` that is not a difference: exit status 2, as diff(1). */
const DIFF_TROUBLE = 2

/** Field errors as `path: message` lines (`posts.schema.2.type: Invalid value.`). */
function errorLines(data: ValidationErrors, prefix = ''): string[] {
  const out: string[] = []
  for (const [key, v] of Object.entries(data)) {
    const path = prefix ? `${prefix}.${key}` : key
    if (typeof v.message === 'string' && typeof v.code === 'string')
      out.push(`  ${path}: ${v.message} (${v.code})`)
    else out.push(...errorLines(v as ValidationErrors, path))
  }
  return out
}

/** An error as the CLI prints it: the message, then one line per field error. */
export function describeSchemaError(err: unknown): string {
  if (err instanceof ApiError) return [err.message, ...errorLines(err.data)].join('\n')
  return err instanceof Error ? err.message : String(err)
}

/** Reads a payload file: JSON in one of the apply shapes, or an Error saying what is wrong. */
function readPayload(file: string): Record<string, unknown>[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`)
  }
  try {
    return schemaPayloadItems(parsed)
  } catch (err) {
    throw new Error(`${file}: ${describeSchemaError(err)}`)
  }
}

/** The human-readable plan: one block per collection that differs. */
export function formatPlan(entries: PlanDetail[], force: boolean): string[] {
  const lines: string[] = []
  for (const e of entries) {
    if (e.action === 'unchanged') continue
    lines.push(`${e.name}: ${e.action}`)
    for (const f of e.fieldsAdded) lines.push(`  + ${f}`)
    for (const f of e.fieldsChanged) lines.push(`  ~ ${f}`)
    for (const f of e.fieldsRemoved)
      lines.push(force ? `  - ${f}` : `  - ${f} (kept: pending removal, drop it with --force)`)
    if (e.attributes.length > 0) lines.push(`  * ${e.attributes.join(', ')}`)
  }
  return lines
}

/** Counts per action, for the summary line. */
function counts(entries: PlanDetail[]): Record<'create' | 'update' | 'unchanged', number> {
  const n = { create: 0, update: 0, unchanged: 0 }
  for (const e of entries) n[e.action]++
  return n
}

/** The fields an apply without force left in place, as `collection.field`. */
function pending(entries: PlanDetail[]): string[] {
  return entries.flatMap((e) =>
    e.pendingRemoval ? e.fieldsRemoved.map((f) => `${e.name}.${f}`) : [],
  )
}

/** What an apply did, in one line, with the fields it kept. */
export function applySummary(result: ApplyResult): string[] {
  const n = counts(result.collections)
  const lines = [`applied: ${n.create} created, ${n.update} updated, ${n.unchanged} unchanged`]
  const kept = pending(result.collections)
  if (kept.length > 0)
    lines.push(
      `${kept.length} field(s) not dropped (pending removal): ${kept.join(', ')}; apply with --force to drop them`,
    )
  return lines
}

/** Collections stored but absent from the payload (never dropped), by name. */
function absent(app: App, items: Record<string, unknown>[]): string[] {
  const ids = new Set(items.map((i) => i.id).filter((v) => typeof v === 'string'))
  const names = new Set(
    items.map((i) => (typeof i.name === 'string' ? i.name.toLowerCase() : undefined)),
  )
  return app.collections
    .all()
    .filter((c) => !ids.has(c.id) && !names.has(c.name.toLowerCase()))
    .map((c) => c.name)
    .sort()
}

/** Opens the app of `--dir` in this process, quietly. */
function openApp(ctx: SchemaCommandContext): Promise<App> {
  return openCliApp({
    dataDir: resolve(ctx.dir ?? './svc_data'),
    logger: { debug() {}, info() {}, warn: console.warn, error: console.error },
    encryptionKey: ctx.encryptionKey,
  })
}

/** Writes a file whole or not at all (a temporary file renamed over it). */
function writeWhole(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, text)
  renameSync(tmp, file)
}

/** `schema export [FILE]`: every collection as an apply payload, sorted, one stable format. */
async function exportCommand(app: App, file: string | undefined): Promise<void> {
  const payload = exportSchema(app)
  const text = `${JSON.stringify(payload, null, 2)}\n`
  if (file === undefined) {
    process.stdout.write(text)
    return
  }
  writeWhole(resolve(file), text)
  console.error(`exported ${payload.collections.length} collections to ${file}`)
}

/**
 * `schema diff FILE`: the plan, without writing. Exit status 0 when the file matches the
 * stored schema, 1 when applying it would change something, 2 on trouble (as diff(1)).
 */
async function diffCommand(app: App, file: string): Promise<void> {
  let result: ApplyResult
  let items: Record<string, unknown>[]
  try {
    items = readPayload(file)
    result = await applySchema(app, items, { dryRun: true })
  } catch (err) {
    console.error(`error: ${describeSchemaError(err)}`)
    process.exitCode = DIFF_TROUBLE
    return
  }
  const lines = formatPlan(result.collections, false)
  const n = counts(result.collections)
  lines.push(
    `${result.collections.length} collections in ${file}: ${n.create} to create, ${n.update} to update, ${n.unchanged} unchanged`,
  )
  const others = absent(app, items)
  if (others.length > 0) lines.push(`not in the file (left alone): ${others.join(', ')}`)
  console.log(lines.join('\n'))
  process.exitCode = n.create + n.update > 0 ? 1 : 0
}

/**
 * Binds progress lines on the collection model hooks while an apply saves `total`
 * collections; returns the unbind.
 */
function progress(app: App, total: number): () => void {
  if (total < PROGRESS_FROM) return () => {}
  let done = 0
  const report = async (e: { collection: { name: string }; next(): Promise<void> }) => {
    await e.next()
    done++
    console.error(`[${done}/${total}] saved ${e.collection.name}`)
  }
  const ids = [app.hooks.onCollectionCreate.bind(report), app.hooks.onCollectionUpdate.bind(report)]
  return () => {
    app.hooks.onCollectionCreate.unbind(ids[0]!)
    app.hooks.onCollectionUpdate.unbind(ids[1]!)
  }
}

/**
 * Applies a payload on `app` and prints the plan and what was done. A dry run first validates
 * the whole file and counts the saves, so large schemas show progress.
 */
export async function applyFile(
  app: App,
  file: string,
  force: boolean,
  log: (line: string) => void = (l) => console.log(l),
): Promise<ApplyResult> {
  const items = readPayload(file)
  const planned = await applySchema(app, items, { dryRun: true, force })
  const writes = planned.collections.filter((e) => e.saved).length
  const unbind = progress(app, writes)
  let result: ApplyResult
  try {
    result = await applySchema(app, items, { force })
  } finally {
    unbind()
  }
  for (const line of [...formatPlan(result.collections, force), ...applySummary(result)]) log(line)
  return result
}

/** `schema export|diff|apply`, with `--dir` and (apply) `--force`. */
export async function schemaCommand(
  positionals: string[],
  ctx: SchemaCommandContext,
): Promise<void> {
  const [, action, file, ...extra] = positionals
  const usage = 'schema needs an action: export [FILE], diff FILE or apply FILE [--force]'
  if (!action) throw ctx.usageError(usage)
  if (!['export', 'diff', 'apply'].includes(action))
    throw ctx.usageError(`unknown schema action "${action}": expected export, diff or apply`)
  if (extra.length > 0) throw ctx.usageError(`schema ${action} takes one FILE at most`)
  if (action !== 'export' && file === undefined) throw ctx.usageError(`schema ${action} needs FILE`)
  if (ctx.force && action !== 'apply') throw ctx.usageError(`--force belongs to schema apply`)
  const app = await openApp(ctx)
  try {
    if (action === 'export') await exportCommand(app, file)
    else if (action === 'diff') await diffCommand(app, file!)
    else
      await applyFile(app, file!, ctx.force).catch((err: unknown) => {
        throw new Error(describeSchemaError(err), { cause: err })
      })
  } finally {
    await app.close()
  }
}

/**
 * `serve --automigrate`: applies `./svc_schema.json` (never with force) when it exists, before
 * the server listens, and prints what it did. A file that does not apply closes the server and
 * stops the start.
 */
export async function automigrate(server: { app: App; close(): Promise<void> }): Promise<void> {
  const file = resolve(AUTOMIGRATE_FILE)
  if (!existsSync(file)) {
    console.log(`automigrate: no ${AUTOMIGRATE_FILE} in ${process.cwd()}, nothing applied`)
    return
  }
  try {
    await applyFile(server.app, file, false, (line) => console.log(`automigrate: ${line}`))
  } catch (err) {
    await server.close()
    throw new Error(`automigrate: ${describeSchemaError(err)}`, { cause: err })
  }
}
