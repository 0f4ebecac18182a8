/**
 * The members of PocketBase's `$app` that this folder's newer parts offer: `newMailClient()`
 * (`mails.ts`), `db()` (`db-query.ts`), and the finds that take `$dbx` expressions
 * (`findAllRecords`, `countRecords`) or a key and value (`findFirstRecordByData`, `dbx.ts`).
 */
import type { App } from '../../../core/app.js'
import { countRecords, findAllRecords, findFirstRecordByData } from './dbx.js'
import { dbOf } from './db-query.js'
import { mailClient } from './mails.js'

/** The extra members, over the app `appOf` gives (the event's, a transaction's inside one). */
export function appExtras(appOf: () => App): Record<string, unknown> {
  return {
    newMailClient: (): object => mailClient(appOf),
    db: (): object => dbOf(appOf),
    findAllRecords: (collection: unknown, ...exprs: unknown[]) =>
      findAllRecords(appOf(), collection, exprs),
    countRecords: (collection: unknown, ...exprs: unknown[]) =>
      countRecords(appOf(), collection, exprs),
    findFirstRecordByData: (collection: unknown, key: unknown, value: unknown) =>
      findFirstRecordByData(appOf(), collection, key, value),
  }
}

/**
 * `facade` (an `$app`) with the extra members added: a view whose other members, and the load
 * check's `in` test, go through to it.
 */
export function withExtras(facade: object, appOf: () => App): object {
  const extras = appExtras(appOf)
  return new Proxy(facade, {
    get: (t, k, r) =>
      typeof k === 'string' && k in extras ? extras[k] : (Reflect.get(t, k, r) as unknown),
    has: (t, k) => (typeof k === 'string' && k in extras) || k in t,
  })
}
