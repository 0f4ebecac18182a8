/**
 * `app.db()` in a migration: PocketBase's `dbx` builder, its `newQuery(sql)` part:
 * `.bind({name: value})` for `{:name}` placeholders (bound as parameters, never spliced into
 * the text), `.execute()`, `.one(new DynamicModel({...}))`, `.all(arrayOf(new DynamicModel(…)))`
 * and `.column(list)`, run on the run's transaction (the statement text is the migration
 * author's own SQL, as in PocketBase: written for the engine it runs on). Also
 * `DynamicModel` and `arrayOf`.
 */
import type { App } from '../../../../core/app.js'
import { messages } from '../../../../core/errors.js'
import type { Row } from '../../../../store/db.js'
import { join, param, raw, type Sql } from '../../../../store/sql.js'
import { strict } from '../unsupported.js'
import type { Replay } from './replay.js'

type Json = Record<string, unknown>

/** The shape of a `DynamicModel` (its constructor's object), kept off its enumerable keys. */
const SHAPE = Symbol('svcbase.dynamicModelShape')
/** The model an `arrayOf(model)` list is filled with. */
const ITEM = Symbol('svcbase.arrayOfItem')

/** `new DynamicModel(shape)`: an object with the shape's keys, typed by their values. */
export function dynamicModel(shape: unknown): Json {
  const s = typeof shape === 'object' && shape !== null ? (shape as Json) : {}
  const model: Json = { ...s }
  Object.defineProperty(model, SHAPE, { value: { ...s }, enumerable: false })
  return model
}

/** `arrayOf(model)`: an empty list that `.all()` fills with copies of `model`. */
export function arrayOf(model: unknown): unknown[] {
  const list: unknown[] = []
  Object.defineProperty(list, ITEM, { value: model, enumerable: false })
  return list
}

/** A column value read into a model key typed by its default `like`. */
function typed(v: unknown, like: unknown): unknown {
  if (v === null || v === undefined) return like === null ? null : v
  if (typeof like === 'string') return typeof v === 'string' ? v : JSON.stringify(v)
  if (typeof like === 'number') return Number(v)
  if (typeof like === 'boolean') return v === true || v === 1 || v === '1' || v === 'true'
  if (typeof like === 'object' && like !== null && typeof v === 'string') {
    try {
      return JSON.parse(v) as unknown
    } catch {
      return v
    }
  }
  return v
}

/** Fills `model` from `row`: a DynamicModel's keys typed, any other object takes every column. */
function fill(model: unknown, row: Row): void {
  if (typeof model !== 'object' || model === null) return
  const m = model as Json & { [SHAPE]?: Json }
  const shape = m[SHAPE]
  if (!shape) return void Object.assign(m, row)
  for (const [k, like] of Object.entries(shape)) if (k in row) m[k] = typed(row[k], like)
}

/** The statement with its `{:name}` placeholders bound from `params`. */
function statement(text: string, params: Json): Sql {
  const parts: Sql[] = []
  let last = 0
  for (const m of text.matchAll(/\{:(\w+)\}/g)) {
    parts.push(raw(text.slice(last, m.index)))
    const name = m[1]!
    if (!(name in params))
      throw new Error(messages.pbBadArgument({ name: `{:${name}}`, expected: 'a bound value' }))
    const v = params[name]
    parts.push(param(typeof v === 'object' && v !== null ? JSON.stringify(v) : v))
    last = m.index + m[0].length
  }
  parts.push(raw(text.slice(last)))
  return join(parts, '')
}

/** `app.db()`: the builder over the run's transaction. */
export function dbBuilder(tx: App, replay: Replay): object {
  const newQuery = (text: unknown): object => {
    const source = typeof text === 'string' ? text : ''
    const params: Json = {}
    const query: object = strict('query', {
      bind: (p: unknown) => {
        if (typeof p === 'object' && p !== null) Object.assign(params, p)
        return query
      },
      sql: () => source,
      params: () => ({ ...params }),
      execute: () => {
        const q = statement(source, params)
        return replay.async(
          () => tx.db.run(q),
          (r) => {
            const changes = (r as { changes: number }).changes
            return { rowsAffected: () => changes, lastInsertId: () => 0 }
          },
        )
      },
      one: (model: unknown): void => {
        const q = statement(source, params)
        replay.async(
          async () => {
            const row = await tx.db.get(q)
            if (!row) throw new Error('sql: no rows in result set')
            return row
          },
          (row) => fill(model, row as Row),
        )
      },
      all: (list: unknown): void => {
        if (!Array.isArray(list))
          throw new Error(messages.pbBadArgument({ name: 'query.all', expected: 'arrayOf(model)' }))
        const q = statement(source, params)
        replay.async(
          () => tx.db.all(q),
          (rows) => {
            const item = (list as { [ITEM]?: unknown })[ITEM]
            list.length = 0
            for (const row of rows as Row[]) {
              const shape = (item as { [SHAPE]?: Json } | undefined)?.[SHAPE]
              const m = shape ? dynamicModel(shape) : {}
              fill(m, row)
              list.push(m)
            }
          },
        )
      },
      column: (list: unknown): void => {
        if (!Array.isArray(list))
          throw new Error(messages.pbBadArgument({ name: 'query.column', expected: 'an array' }))
        const q = statement(source, params)
        replay.async(
          () => tx.db.all(q),
          (rows) => {
            list.length = 0
            for (const row of rows as Row[]) list.push(Object.values(row)[0])
          },
        )
      },
    })
    return query
  }
  return strict('app.db()', { newQuery })
}
