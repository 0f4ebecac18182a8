/**
 * PocketBase's `$app` (and `e.app`, and the `txApp` of `runInTransaction`) for `*.pb.js` scripts:
 * the synchronous finds, and the writes (`save`, `delete`, `runInTransaction`) queued on the
 * running handler (see `invocation.ts`) and carried out through the one record service
 * (`app.records`, as a superuser: validation, hooks and events happen as for any write);
 * the save or delete of a collection (`collection.ts`, once hook files have its globals) goes
 * through the collection service (`app.collections`); `newMailClient()`, `db()` and the `$dbx`
 * finds come from `app-extras.ts`.
 */
import { format } from 'node:util'
import type { App } from '../../../core/app.js'
import { systemRequest } from '../../../core/auth/superusers.js'
import { collectionToJSON } from '../../../core/collections/codec.js'
import { messages } from '../../../core/errors.js'
import { newId } from '../../../tools/ids.js'
import { appExtras } from './app-extras.js'
import { collectionInput, PbCollection, pbCollectionOf } from './collection.js'
import { currentApp, enqueue } from './invocation.js'
import {
  collectionOf,
  findAuthRecordByEmail,
  findFirstRecordByFilter,
  findRecordById,
  findRecordsByFilter,
  findRecordsByIds,
} from './find.js'
import { asPbRecord, type PbRecord } from './record.js'
import { strict } from './unsupported.js'
import { uploadsOf } from './filesystem.js'

/** A write, carried out later with the app it runs in (a transaction's, inside one). */
type Write = (app: App) => Promise<unknown>

/** Where the writes of one facade go: the running handler's queue, or a transaction's list. */
type Sink = (name: string, write: Write) => void

/** The body `$app.save` sends: every set field of a new record, the changed ones of a stored one. */
export function saveBody(rec: PbRecord): Record<string, unknown> {
  const data = rec.svcData
  const keys = rec.isNew() ? Object.keys(data) : [...rec.changed]
  const body: Record<string, unknown> = {}
  for (const k of keys) if (k in data) body[k] = data[k]
  // PocketBase's model save needs no confirmation of a password it is given.
  if (rec.svcCollection.type === 'auth' && 'password' in body && !('passwordConfirm' in body))
    body.passwordConfirm = body.password
  if (!rec.isNew()) delete body.id
  return body
}

/** The record a write names, or a clear error. */
function recordArg(rec: unknown, name: string): PbRecord {
  const r = asPbRecord(rec)
  if (!r) throw new Error(messages.pbBadArgument({ name, expected: 'a record' }))
  return r
}

/** Go's `slog` level numbers, which PocketBase stores in `_logs.level`. */
const SLOG_LEVELS = { debug: -4, info: 0, warn: 4, error: 8 } as const

/**
 * The data of a `$app.logger()` line as Go's `slog` reads its arguments: key, value, key,
 * value…; a value without a string key before it goes under `!BADKEY`.
 */
export function slogData(args: readonly unknown[]): Record<string, unknown> {
  const data: Record<string, unknown> = {}
  for (let i = 0; i < args.length; i++) {
    const key = args[i]
    if (typeof key === 'string' && i + 1 < args.length) data[key] = args[++i]
    else data['!BADKEY'] = key
  }
  return data
}

/** Builds `$app`-like facades: `appOf` is the app its finds read and its writes default to. */
export function appFacade(appOf: () => App, sink?: Sink): object {
  const queue: Sink =
    sink ??
    ((name, write) => {
      const app = appOf()
      enqueue(name, () => write(app))
    })

  /** `$app.save(collection)`: through the collection service, created or updated by id. */
  const saveCollection = (c: PbCollection): void => {
    const input = collectionInput(c)
    const id = typeof c.id === 'string' ? c.id : ''
    queue('$app.save', async (app) => {
      const exists = id !== '' && app.registry.find(id) !== undefined
      const saved = exists
        ? await app.collections.update(id, input)
        : await app.collections.create(input)
      c.svcAssign(collectionToJSON(saved))
    })
  }

  const save = (rec: unknown): void => {
    const name = '$app.save'
    if (rec instanceof PbCollection) return saveCollection(rec)
    const r = recordArg(rec, name)
    const c = r.svcCollection
    // The body is taken now, so later changes to the record do not leak into this save; a new
    // record gets its id now, so the script can use `record.id` right after.
    if (r.isNew() && !r.get('id')) r.svcData.id = newId()
    const create = r.isNew()
    const id = r.id
    // Files of `$filesystem` set on the record go as uploads of their field.
    const { body, prepare } = uploadsOf(saveBody(r))
    r.markStored()
    queue(name, async (app) => {
      const info = systemRequest(app)
      const { files, cleanup } = await prepare()
      try {
        const saved = create
          ? await app.records.create(c, body, info, files)
          : await app.records.update(c, id, body, info, files)
        // The stored values (autodates, defaults) show in the record once the save has run.
        Object.assign(r.svcData, saved)
      } finally {
        await cleanup()
      }
    })
  }

  const remove = (rec: unknown): void => {
    const name = '$app.delete'
    if (rec instanceof PbCollection) {
      const id = String(rec.id)
      return queue(name, (app) => app.collections.delete(id))
    }
    const r = recordArg(rec, name)
    const c = r.svcCollection
    const id = r.id
    queue(name, (app) => app.records.delete(c, id, systemRequest(app)))
  }

  const runInTransaction = (fn: unknown): void => {
    const name = '$app.runInTransaction'
    if (typeof fn !== 'function')
      throw new Error(messages.pbBadArgument({ name, expected: 'a function' }))
    const writes: Write[] = []
    const tx = appFacade(appOf, (_n, write) => writes.push(write))
    // The body runs now, synchronously; its writes run later, together, in one transaction. A
    // body that throws queues nothing: nothing is written.
    ;(fn as (txApp: object) => unknown)(tx)
    queue(name, (app) =>
      app.runInTransaction(async (txApp) => {
        for (const write of writes) await write(txApp)
      }),
    )
  }

  const log =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (message: unknown, ...attrs: unknown[]): void => {
      const app = appOf()
      const text = typeof message === 'string' ? message : format(message)
      const data = slogData(attrs)
      app.logger[level](text, data)
      // PocketBase's app logger writes `_logs` rows too (with its level numbers), as the logs
      // feature's writer does when it is on (it applies `settings.logs`: maxDays, minLevel).
      app.services.find('logs')?.writer.add(SLOG_LEVELS[level], text, data)
    }

  return strict('$app', {
    findRecordById: (collection: unknown, id: unknown) => findRecordById(appOf(), collection, id),
    findCollectionByNameOrId: (ref: unknown) =>
      pbCollectionOf(collectionOf(appOf(), ref, '$app.findCollectionByNameOrId')),
    findRecordsByFilter: (
      collection: unknown,
      filter: string,
      sort?: string,
      limit?: number,
      offset?: number,
      ...params: unknown[]
    ) => findRecordsByFilter(appOf(), collection, filter, sort, limit, offset, params),
    findFirstRecordByFilter: (collection: unknown, filter: string, ...params: unknown[]) =>
      findFirstRecordByFilter(appOf(), collection, filter, params),
    findRecordsByIds: (collection: unknown, ids: unknown) =>
      findRecordsByIds(appOf(), collection, ids),
    findAuthRecordByEmail: (collection: unknown, email: unknown) =>
      findAuthRecordByEmail(appOf(), collection, email),
    ...appExtras(appOf, queue),
    save,
    delete: remove,
    runInTransaction,
    // PocketBase's import (as the migrations' `app.importCollections`), queued as a write.
    importCollections: (items: unknown, deleteMissing: unknown): void => {
      const list = JSON.parse(JSON.stringify(items ?? null)) as unknown
      queue('$app.importCollections', (app) => app.collections.import(list, deleteMissing === true))
    },
    logger: () =>
      strict('$app.logger()', {
        debug: log('debug'),
        info: log('info'),
        warn: log('warn'),
        error: log('error'),
      }),
  })
}

/**
 * The global `$app`: the app of the handler running now (its event's app, so a transaction's
 * inside one), or the script's app at the top level.
 */
export function globalApp(base: App): object {
  return appFacade(() => currentApp() ?? base)
}
