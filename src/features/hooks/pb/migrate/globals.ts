/**
 * The globals of a `pb_migrations` file's context (PocketBase's "M" column): `migrate`,
 * `Collection`, `Field` and the typed field classes, `FieldsList`, `Record`, `DynamicModel`,
 * `arrayOf`, `unmarshal`, `toString`, `console`, `__hooks`; PocketBase's other globals are the
 * hook runner's stubs (a clear "not supported"). `$app` and the pre-0.23 `Dao` are not defined,
 * as in PocketBase: a legacy `new Dao(db)` fails with `ReferenceError: Dao is not defined`.
 */
import { format } from 'node:util'
import type { App } from '../../../../core/app.js'
import { messages } from '../../../../core/errors.js'
import { collectionGlobals } from '../collection.js'
import { dbxGlobal } from '../dbx.js'
import { migrationHttpGlobal } from '../http-global.js'
import { pbRecord } from '../record.js'
import { unsupportedGlobals } from '../unsupported.js'
import { recordCollection } from './app.js'
import { arrayOf, dynamicModel } from './db.js'
import type { Replay } from './replay.js'

/** The run a file's calls belong to (set while its `up` or `down` runs). */
export interface RunState {
  run: { tx: App; replay: Replay } | null
}

/** What `migrate(up, down)` registered. */
export interface Registered {
  up: ((app: object) => unknown) | null
  down: ((app: object) => unknown) | null
}

/** The script's view of a value as text (PocketBase's `toString`). */
function toText(v: unknown): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'string') return v
  if (Array.isArray(v) && v.every((b) => typeof b === 'number')) return Buffer.from(v).toString()
  return JSON.stringify(v)
}

/** The globals of one migration file. */
export function migrationGlobals(
  hooksDir: string,
  state: RunState,
  registered: Registered,
): Record<string, unknown> {
  const current = (name: string) => {
    if (!state.run) throw new Error(messages.pbOutsideHandler({ name }))
    return state.run
  }
  const say =
    (stream: 'log' | 'error') =>
    (...args: unknown[]): void => {
      const line = format(...args)
      const print = () => (stream === 'log' ? console.log(line) : console.error(line))
      if (state.run) state.run.replay.once(print)
      else print()
    }
  const out: Record<string, unknown> = {
    ...unsupportedGlobals(),
    __hooks: hooksDir,
    migrate: (up: unknown, down?: unknown) => {
      if (typeof up !== 'function')
        throw new Error(messages.pbBadArgument({ name: 'migrate', expected: 'an up function' }))
      registered.up = up as Registered['up']
      registered.down = typeof down === 'function' ? (down as Registered['down']) : null
    },
    ...collectionGlobals(),
    // `$dbx` expressions, for the `app.db()` builders' conditions (`migrate/db-builders.ts`)
    $dbx: dbxGlobal(),
    // `$http.send`: an asynchronous op of the step's replay (made between two runs of `up`).
    $http: migrationHttpGlobal(() => state.run),
    Record: function Record(collection: unknown, data?: unknown) {
      const { tx, replay } = current('new Record')
      const rec = pbRecord(recordCollection(tx, replay, collection), {}, true)
      if (data && typeof data === 'object') rec.load(data as Record<string, unknown>)
      return rec
    },
    DynamicModel: function DynamicModel(shape?: unknown) {
      return dynamicModel(shape)
    },
    arrayOf,
    toString: toText,
    sleep: () => undefined,
    console: {
      log: say('log'),
      info: say('log'),
      debug: say('log'),
      warn: say('error'),
      error: say('error'),
    },
  }
  return out
}
