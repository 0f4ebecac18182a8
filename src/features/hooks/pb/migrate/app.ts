/**
 * The `app` a `pb_migrations` file's `up`/`down` receives: PocketBase's transaction-bound
 * `core.App` over svcbase's services, every call an op of the run's {@link Replay} (so it
 * behaves synchronously, as in PocketBase). Collections go through the collection service
 * (`app.collections`: validation, hooks, schema sync), records through the record service as
 * a superuser, raw SQL through `db.ts`; everything in the one transaction of the run.
 */
import { format } from 'node:util'
import type { App } from '../../../../core/app.js'
import { systemRequest } from '../../../../core/auth/superusers.js'
import { collectionToJSON } from '../../../../core/collections/codec.js'
import type { Collection } from '../../../../core/collections/model.js'
import { ApiError, messages } from '../../../../core/errors.js'
import type { RecordData } from '../../../../core/request-info.js'
import { newId } from '../../../../tools/ids.js'
import { saveBody } from '../app-facade.js'
import { collectionInput, PbCollection } from '../collection.js'
import { FIND_PLANS, runFindAsync, type FindPlan } from '../find.js'
import { asPbRecord, pbRecord, type PbRecord } from '../record.js'
import { strict } from '../unsupported.js'
import { dbBuilder } from './db.js'
import type { Replay } from './replay.js'
import { checkSettings, isSettings, settingsPatch, settingsView } from './settings.js'

type Json = Record<string, unknown>

/** PocketBase's error for a find with no row (Go's `sql.ErrNoRows`). */
export const NO_ROWS = 'sql: no rows in result set'

const noRows = (): Error => new Error(NO_ROWS)

/** The collection `ref` names (a name or id, a collection object, a record's), or null. */
function lookup(tx: App, ref: unknown): Collection | null {
  if (typeof ref === 'string') return tx.registry.find(ref) ?? null
  const r = asPbRecord(ref)
  if (r) return tx.registry.find(r.svcCollection.id) ?? null
  if (ref instanceof PbCollection) return tx.registry.find(String(ref.id)) ?? null
  return null
}

/** A record of the log's plain values, made fresh for each run. */
const recordOf =
  (c: Collection) =>
  (data: unknown): PbRecord =>
    pbRecord(c, data as RecordData)

/** The migration `app` over the transaction's app `tx`. */
export function migrationApp(tx: App, replay: Replay, file: string): object {
  const findCollection = (ref: unknown): PbCollection =>
    replay.sync(
      () => {
        const c = lookup(tx, ref)
        if (!c) throw noRows()
        return collectionToJSON(c)
      },
      (json) => new PbCollection(json as Json),
    )

  const saveCollection = (c: PbCollection): void => {
    const input = collectionInput(c)
    const id = typeof c.id === 'string' ? c.id : ''
    replay.async(
      async () => {
        const exists = id !== '' && tx.registry.find(id) !== undefined
        const saved = exists
          ? await tx.collections.update(id, input)
          : await tx.collections.create(input)
        return collectionToJSON(saved)
      },
      (json) => c.svcAssign(json as Json),
    )
  }

  const saveRecord = (r: PbRecord): void => {
    const c = r.svcCollection
    // A new record gets its id now, as PocketBase's save does.
    if (r.isNew() && !r.get('id')) r.svcData.id = newId()
    const create = r.isNew()
    const id = r.id
    const body = saveBody(r)
    replay.async(
      async () => {
        const info = systemRequest(tx)
        return create
          ? await tx.records.create(c, body, info)
          : await tx.records.update(c, id, body, info)
      },
      (saved) => {
        Object.assign(r.svcData, saved as RecordData)
        r.markStored()
      },
    )
  }

  const save = (model: unknown): void => {
    if (model instanceof PbCollection) return saveCollection(model)
    const r = asPbRecord(model)
    if (r) return saveRecord(r)
    if (isSettings(model)) {
      const patch = settingsPatch(tx.settings.get(), model)
      // Checked now (a refusal fails the migration); written by the settings service's own
      // transaction once this run commits.
      replay.sync(() => checkSettings(tx, patch))
      replay.once(() => tx.onAfterCommit(() => tx.settings.update(patch).then(() => undefined)))
      return
    }
    throw new Error(
      messages.pbBadArgument({ name: 'app.save', expected: 'a collection, record or settings' }),
    )
  }

  const remove = (model: unknown): void => {
    if (model instanceof PbCollection) {
      const id = String(model.id)
      replay.async(() => tx.collections.delete(id))
      return
    }
    const r = asPbRecord(model)
    if (!r) throw new Error(messages.pbBadArgument({ name: 'app.delete', expected: 'a model' }))
    const c = r.svcCollection
    const id = r.id
    replay.async(() => tx.records.delete(c, id, systemRequest(tx)))
  }

  /** A find of records, run asynchronously and replayed as fresh records. */
  const find =
    (plan: keyof typeof FIND_PLANS) =>
    (...args: unknown[]): PbRecord | PbRecord[] => {
      const planOf = FIND_PLANS[plan] as (app: App, ...a: unknown[]) => FindPlan
      const made = replay.sync<FindPlan>(() => planOf(tx, ...args))
      return replay.async(
        async () => {
          try {
            return await runFindAsync(tx, made)
          } catch (err) {
            throw err instanceof ApiError && err.status === 404 ? noRows() : err
          }
        },
        (rows) =>
          made.one
            ? recordOf(made.c)((rows as unknown[])[0])
            : (rows as unknown[]).map(recordOf(made.c)),
      )
    }

  const log =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (message: unknown, ...attrs: unknown[]): void =>
      replay.once(() => tx.logger[level](format(message, ...attrs), { migration: file }))

  const self: object = strict('app', {
    findCollectionByNameOrId: findCollection,
    findCachedCollectionByNameOrId: findCollection,
    findAllCollections: (...types: unknown[]): PbCollection[] =>
      replay.sync(
        () =>
          tx.registry
            .all()
            .filter((c) => types.length === 0 || types.map(String).includes(c.type))
            .map(collectionToJSON),
        (list) => (list as Json[]).map((json) => new PbCollection(json)),
      ),
    isCollectionNameUnique: (name: unknown, ...excludeIds: unknown[]): boolean =>
      replay.sync<boolean>(() => {
        const c = tx.registry.find(String(name))
        return !c || excludeIds.map(String).includes(c.id)
      }),
    importCollections: (items: unknown, deleteMissing: unknown): void => {
      const list = JSON.parse(JSON.stringify(items ?? null)) as unknown
      replay.async(() => tx.collections.import(list, deleteMissing === true))
    },
    truncateCollection: (ref: unknown): void => {
      const id = replay.sync<string>(() => {
        const c = lookup(tx, ref)
        if (!c) throw noRows()
        return c.id
      })
      replay.async(() => tx.collections.truncate(id))
    },
    findRecordById: find('findRecordById'),
    findRecordsByFilter: find('findRecordsByFilter'),
    findFirstRecordByFilter: find('findFirstRecordByFilter'),
    findRecordsByIds: find('findRecordsByIds'),
    findAuthRecordByEmail: find('findAuthRecordByEmail'),
    findAllRecords: (ref: unknown) => find('findRecordsByFilter')(ref, ''),
    findFirstRecordByData: (ref: unknown, key: unknown, value: unknown) =>
      find('findFirstRecordByFilter')(ref, `${String(key)} = {:value}`, { value }),
    save,
    saveNoValidate: save,
    delete: remove,
    runInTransaction: (fn: unknown): void => {
      if (typeof fn !== 'function')
        throw new Error(
          messages.pbBadArgument({ name: 'app.runInTransaction', expected: 'a function' }),
        )
      // The run is one transaction already: the body joins it, as PocketBase's nested call.
      ;(fn as (app: object) => unknown)(self)
    },
    isTransactional: () => true,
    db: () => dbBuilder(tx, replay),
    settings: () =>
      replay.sync(
        () => structuredClone(tx.settings.get()),
        (s) => settingsView(s),
      ),
    dataDir: () => tx.config.dataDir,
    isDev: () => tx.config.dev === true,
    logger: () =>
      strict('app.logger()', {
        debug: log('debug'),
        info: log('info'),
        warn: log('warn'),
        error: log('error'),
      }),
  })
  return self
}

/** The svcbase collection a `new Record(collection, data)` names, resolved as an op. */
export function recordCollection(tx: App, replay: Replay, ref: unknown): Collection {
  return replay.sync<Collection>(() => {
    const c = lookup(tx, ref)
    if (!c) throw noRows()
    return c
  })
}
