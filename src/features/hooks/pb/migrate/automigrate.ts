/**
 * `serve --automigrate`: every collection created, updated or deleted through the collections
 * API writes a migration file in PocketBase's generated format into the migrations folder,
 * `<unix seconds>_<created|updated|deleted>_<name before the change>.js`, and records it in
 * `_migrations` as applied (the change is made already), as PocketBase's `migratecmd` does. An
 * update that changes nothing writes nothing.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { App } from '../../../../core/app.js'
import { collectionToJSON } from '../../../../core/collections/codec.js'
import type { Collection } from '../../../../core/collections/model.js'
import { sql } from '../../../../store/sql.js'

type Json = Record<string, unknown>

const HEADER = '/// <reference path="../pb_data/types.d.ts" />\n'

/** Sorts an object's keys, deeply (PocketBase's JSON is written from maps, keys sorted). */
export function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys)
  if (typeof v !== 'object' || v === null) return v
  const out: Json = {}
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys((v as Json)[k])
  return out
}

/**
 * A collection as PocketBase's generated migrations and snapshots write it: its JSON without the
 * dates, keys sorted.
 */
export function pocketbaseJSON(c: Collection): Json {
  const {
    schema: _s,
    authOptions: _a,
    database: _d,
    created: _c,
    updated: _u,
    ...json
  } = collectionToJSON(c)
  // PocketBase's files leave out an empty provider list (its API answers it).
  const oauth2 = json.oauth2 as { providers?: unknown[] } | undefined
  if (oauth2 && Array.isArray(oauth2.providers) && oauth2.providers.length === 0)
    delete oauth2.providers
  return sortedKeys(json) as Json
}

/** `value` as JSON indented to sit at two spaces in a function body. */
const body = (value: unknown): string => JSON.stringify(value, null, 2).replace(/\n/g, '\n  ')

const createCode = (json: Json): string =>
  `  const collection = new Collection(${body(json)});\n\n  return app.save(collection);\n`

const deleteCode = (id: string): string =>
  `  const collection = app.findCollectionByNameOrId(${JSON.stringify(id)});\n\n  return app.delete(collection);\n`

const file = (up: string, down: string): string =>
  `${HEADER}migrate((app) => {\n${up}}, (app) => {\n${down}})\n`

type Fields = Json[]
const fieldsOf = (json: Json): Fields => json.fields as Fields
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** The props that differ (all but `fields`), with `to`'s values, keys sorted. */
function changedProps(from: Json, to: Json): Json {
  const out: Json = {}
  for (const k of [...new Set([...Object.keys(from), ...Object.keys(to)])].sort())
    if (k !== 'fields' && !same(from[k], to[k])) out[k] = to[k] ?? null
  return out
}

/** The steps of one direction of an update, from `from` to `to` (PocketBase's order). */
function updateSteps(from: Json, to: Json, direction: 'up' | 'down'): string {
  const steps: string[] = [
    `  const collection = app.findCollectionByNameOrId(${JSON.stringify(to.id)})\n`,
  ]
  const props = changedProps(from, to)
  if (Object.keys(props).length > 0)
    steps.push(`  // update collection data\n  unmarshal(${body(props)}, collection)\n`)
  const fromFields = fieldsOf(from)
  const toFields = fieldsOf(to)
  const inFrom = new Map(fromFields.map((f, i) => [f.id, i]))
  const inTo = new Map(toFields.map((f, i) => [f.id, i]))
  const removed = fromFields.filter((f) => !inTo.has(f.id))
  const removeStep = (f: Json) =>
    `  // remove field\n  collection.fields.removeById(${JSON.stringify(f.id)})\n`
  const addAt = (label: string, i: number, f: Json) =>
    `  // ${label}\n  collection.fields.addAt(${i}, new Field(${body(f)}))\n`
  if (direction === 'up') {
    for (const f of removed) steps.push(removeStep(f))
    toFields.forEach((f, i) => {
      const before = inFrom.get(f.id)
      if (before === undefined) steps.push(addAt('add field', i, f))
      else if (!same(fromFields[before], f)) steps.push(addAt('update field', i, f))
    })
  } else {
    // The down of PocketBase's files: re-add, remove the added, restore the changed.
    toFields.forEach((f, i) => {
      if (!inFrom.has(f.id)) steps.push(addAt('add field', i, f))
    })
    for (const f of removed) steps.push(removeStep(f))
    toFields.forEach((f, i) => {
      const before = inFrom.get(f.id)
      if (before !== undefined && !same(fromFields[before], f))
        steps.push(addAt('update field', i, f))
    })
  }
  steps.push('  return app.save(collection)\n')
  return steps.join('\n')
}

/** Whether an update changed anything a migration would carry. */
function changed(from: Json, to: Json): boolean {
  return !same(from, to)
}

/** The text of each generated migration kind. */
export const generated = {
  created: (c: Json) => file(createCode(c), deleteCode(String(c.id))),
  deleted: (c: Json) => file(deleteCode(String(c.id)), createCode(c)),
  updated: (from: Json, to: Json) =>
    file(updateSteps(from, to, 'up'), updateSteps(to, from, 'down')),
}

/** Writes generated migrations into `dir` and records them as applied. */
class Writer {
  private last = 0

  constructor(
    private readonly app: App,
    private readonly dir: string,
  ) {}

  /**
   * A file name `<seconds>_<kind>_<name>.js`, its seconds past the last file's written here, so
   * two changes within one second still sort (and so apply) in the order they were made.
   */
  private name(kind: string, collection: string): string {
    let stamp = Math.max(Math.floor(Date.now() / 1000), this.last + 1)
    const at = (s: number) => `${s}_${kind}_${collection}.js`
    while (existsSync(join(this.dir, at(stamp)))) stamp++
    this.last = stamp
    return at(stamp)
  }

  async write(kind: string, collection: string, text: string): Promise<void> {
    mkdirSync(this.dir, { recursive: true })
    const name = this.name(kind, collection)
    writeFileSync(join(this.dir, name), text, { flag: 'wx' })
    const applied = Math.floor((performance.timeOrigin + performance.now()) * 1000)
    await this.app.db.run(sql`INSERT INTO _migrations (file, applied) VALUES (${name}, ${applied})`)
  }
}

/**
 * Binds the collection request hooks of `app` that write a migration into `dir` after each
 * successful create, update or delete through the API. Returns a function that unbinds them.
 */
export function bindAutomigrate(app: App, dir: string): () => void {
  const writer = new Writer(app, dir)
  const current = (id: unknown): Json | null => {
    const c = typeof id === 'string' ? app.registry.find(id) : undefined
    return c ? pocketbaseJSON(c) : null
  }
  const ids = [
    app.hooks.onCollectionCreateRequest.bind(async (e) => {
      await e.next()
      const made = current(e.collection.id)
      if (made) await writer.write('created', String(made.name), generated.created(made))
    }),
    app.hooks.onCollectionUpdateRequest.bind(async (e) => {
      const before = current(e.collection.id)
      await e.next()
      const after = current(e.collection.id)
      if (before && after && changed(before, after))
        await writer.write('updated', String(before.name), generated.updated(before, after))
    }),
    app.hooks.onCollectionDeleteRequest.bind(async (e) => {
      const before = pocketbaseJSON(e.collection)
      await e.next()
      await writer.write('deleted', String(before.name), generated.deleted(before))
    }),
  ]
  return () => {
    app.hooks.onCollectionCreateRequest.unbind(ids[0]!)
    app.hooks.onCollectionUpdateRequest.unbind(ids[1]!)
    app.hooks.onCollectionDeleteRequest.unbind(ids[2]!)
  }
}
