/**
 * The members of PocketBase's `$app` that this folder's newer parts offer: `newMailClient()`
 * (`mails.ts`), `db()` (`db-query.ts`), and the finds that take `$dbx` expressions
 * (`findAllRecords`, `countRecords`) or a key and value (`findFirstRecordByData`, `dbx.ts`).
 */
import type { App } from '../../../core/app.js'
import { countRecords, findAllRecords, findFirstRecordByData } from './dbx.js'
import { dbOf } from './db-query.js'
import { mailClient } from './mails.js'

/** Queues a write (the facade's: on the running handler, or into `runInTransaction`'s). */
export type QueueWrite = (name: string, write: (app: App) => Promise<unknown>) => void

/**
 * The extra members, over the app `appOf` gives (the event's, a transaction's inside one);
 * `db().newQuery().execute()` writes through `queue`, so a `txApp`'s joins its transaction.
 */
export function appExtras(appOf: () => App, queue: QueueWrite): Record<string, unknown> {
  return {
    newMailClient: (): object => mailClient(appOf),
    db: (): object => dbOf(appOf, queue),
    findAllRecords: (collection: unknown, ...exprs: unknown[]) =>
      findAllRecords(appOf(), collection, exprs),
    countRecords: (collection: unknown, ...exprs: unknown[]) =>
      countRecords(appOf(), collection, exprs),
    findFirstRecordByData: (collection: unknown, key: unknown, value: unknown) =>
      findFirstRecordByData(appOf(), collection, key, value),
  }
}
