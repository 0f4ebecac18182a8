/**
 * `$app.db()` in a `*.pb.js` handler: the `newQuery(sql)` builder of `pb_migrations` files
 * (`migrate/db.ts`, reused as it is) run on the store's synchronous reads instead of a replay:
 * `.bind({...})`, `.all(arrayOf(new DynamicModel({...})))`, `.one(model)` and `.column(list)`
 * fill their target at once; `.execute()` is a write, queued as `$app.save` is (on the running
 * handler, or with a `txApp`'s writes: see `invocation.ts`), so its `rowsAffected()` is not known
 * in the handler.
 */
import type { App } from '../../../core/app.js'
import { messages, notFound } from '../../../core/errors.js'
import type { Row } from '../../../store/db.js'
import type { Sql } from '../../../store/sql.js'
import { arrayOf, dbBuilder } from './migrate/db.js'
import type { Replay } from './migrate/replay.js'
import type { QueueWrite } from './app-extras.js'
import { PbUnsupportedError, strict } from './unsupported.js'

/** The replay `dbBuilder` expects, carrying each op out at once (reads are synchronous here). */
const immediate = {
  async: <T>(run: () => unknown, make: (value: unknown) => T): T => make(run()),
} as unknown as Replay

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
    all: (q: Sql): Row[] => reads('$app.db().newQuery().all').allSync(q),
    get: (q: Sql): Row | undefined => reads('$app.db().newQuery().one').getSync(q),
    run: (q: Sql): { changes: number } => {
      queue('$app.db().newQuery().execute', (target) => target.db.run(q))
      return { changes: Number.NaN }
    },
  }
  return { db: view } as unknown as App
}

/** `$app.db()`: `newQuery(sql)` over the app of the handler running now. */
export function dbOf(appOf: () => App, queue: QueueWrite): object {
  return strict('$app.db()', {
    newQuery: (text: unknown): object => {
      const inner = (
        dbBuilder(syncApp(appOf(), queue), immediate) as { newQuery(t: unknown): object }
      ).newQuery(text) as Record<string, (...a: unknown[]) => unknown>
      const query: object = strict('query', {
        bind: (p: unknown) => {
          inner.bind!(p)
          return query
        },
        sql: () => inner.sql!(),
        params: () => inner.params!(),
        all: (list: unknown) => void inner.all!(list),
        column: (list: unknown) => void inner.column!(list),
        // `one` of migrate/db.ts awaits its read; here it reads through `all` (the same filling).
        one: (model: unknown): void => {
          const list = arrayOf(model)
          inner.all!(list)
          // PocketBase's `sql: no rows in result set`, answered 404 in a route, as the finds.
          if (list.length === 0) throw notFound()
          if (model && typeof model === 'object') Object.assign(model, list[0])
        },
        execute: (): object => {
          inner.execute!()
          return strict('result', {
            rowsAffected: (): never => {
              throw new PbUnsupportedError(
                'result.rowsAffected',
                messages.pbUnsupported({ name: 'result.rowsAffected' }),
              )
            },
          })
        },
      })
      return query
    },
  })
}
