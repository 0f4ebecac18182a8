/**
 * `$app.db()` in a `*.pb.js` handler: the builder of `pb_migrations` files (`migrate/db.ts`,
 * `migrate/db-builders.ts`: `newQuery`, `select`, `insert`, `update`, `delete`, `upsert`) run on
 * the store's synchronous reads instead of a replay, each read within the read budget as the
 * finds' are: `.all(arrayOf(new DynamicModel({...})))`, `.one(model)` and `.column(list)` fill
 * their target at once. `.execute()` is a write, queued as `$app.save` is (on the running
 * handler, or with a `txApp`'s writes: see `invocation.ts`), so its `rowsAffected()` is not
 * known in the handler.
 */
import type { App } from '../../../core/app.js'
import { ApiError, messages, notFound } from '../../../core/errors.js'
import { DbError, type Row } from '../../../store/db.js'
import type { Sql } from '../../../store/sql.js'
import { dbBuilder, unsupported, type DbMode } from './migrate/db.js'
import type { Replay } from './migrate/replay.js'
import type { QueueWrite } from './app-extras.js'
import { PbUnsupportedError } from './unsupported.js'

/** The replay `dbBuilder` expects, carrying each op out at once (reads are synchronous here). */
const immediate = {
  async: <T>(run: () => unknown, make: (value: unknown) => T): T => make(run()),
} as unknown as Replay

/** How a handler's statements end: no row is PocketBase's 404; a write's outcome comes later. */
const hookMode: DbMode = {
  // PocketBase's `sql: no rows in result set`, answered 404 in a route, as the finds.
  noRows: () => notFound(),
  result: () => ({
    rowsAffected: unsupported('result.rowsAffected'),
    lastInsertId: unsupported('result.lastInsertId'),
  }),
  fail: (err) => (passes(err) ? err : new Error(messageOf(err))),
}

/** What a failed query throws as it is: an answer, a call past the subset, a read stopped. */
const passes = (err: unknown): boolean =>
  err instanceof ApiError ||
  err instanceof PbUnsupportedError ||
  (err instanceof DbError && err.kind !== null && err.kind !== 'type')

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err))

/**
 * An app whose `db` reads synchronously (the store's `allSync`/`getSync`) and queues writes on
 * the running handler; the builder of `migrate/db.ts` runs over it.
 */
function syncApp(app: App, queue: QueueWrite): App {
  const db = app.db
  const reads = (name: string) => {
    if (!db.allSync || !db.getSync)
      throw new PbUnsupportedError(name, messages.pbNoSyncReads({ name }))
    return { allSync: db.allSync.bind(db), getSync: db.getSync.bind(db) }
  }
  const view = {
    dialect: db.dialect,
    all: (q: Sql): Row[] => reads('$app.db() query').allSync(q),
    get: (q: Sql): Row | undefined => reads('$app.db() query').getSync(q),
    run: (q: Sql): { changes: number } => {
      // Where the script wrote the statement: a failure later is the script's error (a 400,
      // as PocketBase answers a failed statement), logged with this file and line.
      const at = new Error()
      queue('$app.db() query.execute', async (target) => {
        try {
          return await target.db.run(q)
        } catch (err) {
          if (passes(err)) throw err
          const out = new Error(messageOf(err), { cause: err })
          out.stack = `Error: ${out.message}\n${(at.stack ?? '').split('\n').slice(1).join('\n')}`
          throw out
        }
      })
      return { changes: Number.NaN }
    },
  }
  return { db: view } as unknown as App
}

/** `$app.db()`: the builder over the app of the handler running now. */
export function dbOf(appOf: () => App, queue: QueueWrite): object {
  return dbBuilder(syncApp(appOf(), queue), immediate, hookMode)
}
