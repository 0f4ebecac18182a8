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
import { PbUnsupportedError, strict } from '../unsupported.js'
import { builders } from './db-builders.js'
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

/**
 * How a builder's statements end where they run: a migration's as PocketBase's (no row for
 * `one` is Go's `sql: no rows in result set`, `execute` tells the rows it changed); a hook's
 * differ (`db-query.ts`).
 */
export interface DbMode {
  noRows(): unknown
  result(r: { changes: number }): object
  /** What a query's failure throws to the script (a migration's replay maps its own). */
  fail?(error: unknown): unknown
}

const migrationMode: DbMode = {
  noRows: () => new Error('sql: no rows in result set'),
  result: (r) => ({
    rowsAffected: () => r.changes,
    lastInsertId: unsupported('result.lastInsertId'),
  }),
}

/** A member svcbase does not offer: throws naming it when called. */
export const unsupported = (name: string) => (): never => {
  throw new PbUnsupportedError(name)
}

/** The statement of a query, given its bound parameters, and its text as `sql()` shows it. */
export interface Statement {
  build(params: Json): Sql
  text(params: Json): string
}

/** The run a builder's queries belong to: the app they read and write, and how ops run. */
export interface DbRun {
  tx: App
  replay: Replay
  mode: DbMode
}

/** A dbx `Query`: `bind`, `sql`, `params`, `execute`, `one`, `all`, `column` (and `row`). */
export function dbQuery(run: DbRun, stmt: Statement, bound: Json = {}): object {
  const { tx, replay, mode } = run
  const params: Json = { ...bound }
  const rows = (then: (rows: Row[]) => void): void =>
    replay.async(
      () => tx.db.all(stmt.build(params)),
      (r) => then(r as Row[]),
    )
  const guard =
    <A extends unknown[], R>(fn: (...a: A) => R) =>
    (...a: A): R => {
      try {
        return fn(...a)
      } catch (err) {
        throw mode.fail ? mode.fail(err) : err
      }
    }
  const query: object = strict('query', {
    bind: (p: unknown) => {
      if (typeof p === 'object' && p !== null) Object.assign(params, p)
      return query
    },
    sql: () => stmt.text(params),
    params: () => ({ ...params }),
    execute: guard(() => {
      const q = stmt.build(params)
      return replay.async(
        () => tx.db.run(q),
        (r) => strict('result', mode.result(r as { changes: number })),
      )
    }),
    one: guard((model: unknown): void => {
      const q = stmt.build(params)
      // NB: one row read, whatever the query would return.
      replay.async(
        () => tx.db.get(q),
        (row) => {
          if (!row) throw mode.noRows()
          fill(model, row as Row)
        },
      )
    }),
    all: guard((list: unknown): void => {
      if (!Array.isArray(list))
        throw new Error(messages.pbBadArgument({ name: 'query.all', expected: 'arrayOf(model)' }))
      rows((found) => {
        const item = (list as { [ITEM]?: unknown })[ITEM]
        const shape = (item as { [SHAPE]?: Json } | undefined)?.[SHAPE]
        list.length = 0
        for (const row of found) {
          const m = shape ? dynamicModel(shape) : {}
          fill(m, row)
          list.push(m)
        }
      })
    }),
    column: guard((list: unknown): void => {
      if (!Array.isArray(list))
        throw new Error(messages.pbBadArgument({ name: 'query.column', expected: 'an array' }))
      rows((found) => {
        list.length = 0
        for (const row of found) list.push(Object.values(row)[0])
      })
    }),
    // Go's `Row(&a, &b)` scans into pointers; a script's values are not (PocketBase fails too).
    row: (): never => {
      throw new Error(
        messages.pbBadArgument({ name: 'query.row', expected: 'pointers (use one(model))' }),
      )
    },
  })
  return query
}

/** `app.db()`: the builder over the run's app (`mode`: how its statements end, above). */
export function dbBuilder(tx: App, replay: Replay, mode: DbMode = migrationMode): object {
  const run: DbRun = { tx, replay, mode }
  const newQuery = (text: unknown): object => {
    const source = typeof text === 'string' ? text : ''
    return dbQuery(run, { build: (p) => statement(source, p), text: () => source })
  }
  return strict('app.db()', { newQuery, ...builders(run) })
}
