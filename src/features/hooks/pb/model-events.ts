/**
 * The events of the lifecycle, after-error and model hooks as a `*.pb.js` handler receives them,
 * shaped as PocketBase's (`core.BootstrapEvent`, `core.TerminateEvent`, `core.RecordErrorEvent`,
 * `core.CollectionErrorEvent`, `core.ModelEvent`, `core.ModelErrorEvent`) over svcbase's events.
 * A model event's `e.model` is the record (as `e.record`) or the collection (as `e.collection`,
 * its `tableName()` PocketBase's `_collections`), with `e.type` the action.
 */
import type { App } from '../../../core/app.js'
import { ApiError } from '../../../core/errors.js'
import type { RecordErrorEvent, RecordHookEvent, RecordSuccessEvent } from '../../../core/hooks.js'
import type {
  CollectionErrorEvent,
  CollectionEvent,
  CollectionSuccessEvent,
} from '../../../core/hooks-collection.js'
import type { BootstrapEvent, TerminateEvent } from '../../../core/lifecycle.js'
import type { HookEvent } from '../../../tools/hook.js'
import { appFacade } from './app-facade.js'
import { pbCollectionOf } from './collection.js'
import { enqueue } from './invocation.js'
import { pbRecord } from './record.js'
import { strict } from './unsupported.js'

/** The action a model event reports as `e.type`. */
export type ModelAction = 'create' | 'update' | 'delete' | 'validate'

const nextOf = (e: HookEvent) => (): void => {
  enqueue('e.next', () => e.next())
}

/** `onBootstrap` (and `onBootstrapClear`): the app. */
export function bootstrapEventOf(e: BootstrapEvent | TerminateEvent): object {
  return strict('e', { app: appFacade((): App => e.app), next: nextOf(e) })
}

/** `onTerminate`: the app and `isRestart`. */
export function terminateEventOf(e: TerminateEvent): object {
  return strict('e', {
    app: appFacade((): App => e.app),
    isRestart: e.isRestart,
    next: nextOf(e),
  })
}

/**
 * A failed write's error as PocketBase's Go error reads in a script: `String(e.error)` and
 * `e.error.error()` give its text: field errors as `field: message.` (joined by `; `, as
 * PocketBase's validation errors), a script's own error as `Name: message`, else the message.
 */
export function errorFacade(err: unknown): object {
  const text = errorText(err)
  return strict('e.error', {
    error: (): string => text,
    toString: (): string => text,
    message: text,
  })
}

function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const fields = Object.entries(err.data ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    if (fields.length > 0)
      return (
        fields
          .map(([k, v]) => {
            const raw = (v as { message?: unknown }).message
            const m = (typeof raw === 'string' ? raw : '').replace(/\.$/, '')
            return `${k}: ${m.charAt(0).toLowerCase()}${m.slice(1)}`
          })
          .join('; ') + '.'
      )
    const cause: unknown = err.cause
    if (cause instanceof Error) return `${cause.name}: ${cause.message}`
    return err.message
  }
  if (err instanceof Error) return `${err.name}: ${err.message}`
  return String(err)
}

/** `onRecordAfter{Create,Update,Delete}Error`: the record, its collection and `e.error`. */
export function recordErrorEventOf(e: RecordErrorEvent): object {
  return strict('e', {
    app: appFacade((): App => e.app),
    collection: e.collection,
    record: pbRecord(e.collection, () => e.record),
    error: errorFacade(e.error),
    next: nextOf(e),
  })
}

/** `onCollectionAfter{Create,Update,Delete}Error`: the collection (JSON) and `e.error`. */
export function collectionErrorEventOf(e: CollectionErrorEvent): object {
  return strict('e', {
    app: appFacade((): App => e.app),
    collection: pbCollectionOf(e.collection),
    error: errorFacade(e.error),
    next: nextOf(e),
  })
}

/** A model event's members: `e.app`, `e.model`, `e.type`, `e.next()` (and `e.error`). */
function modelEvent(
  e: HookEvent & { app: App },
  model: object,
  type: ModelAction,
  error?: unknown,
): object {
  return strict('e', {
    app: appFacade((): App => e.app),
    model,
    type,
    ...(error === undefined ? {} : { error: errorFacade(error) }),
    next: nextOf(e),
  })
}

/** A collection as a model event's `e.model` (its table: `_collections`, as PocketBase's). */
function collectionModel(e: CollectionEvent | CollectionSuccessEvent): object {
  const model = pbCollectionOf(e.collection)
  Object.defineProperty(model, 'tableName', { value: (): string => '_collections' })
  return model
}

/** `onModel…` over a record family: `e.model` is the event's record, as `e.record`. */
export const recordModelEventOf =
  (type: ModelAction) =>
  (e: RecordHookEvent | RecordSuccessEvent | RecordErrorEvent): object => {
    const original = 'original' in e ? () => e.original : undefined
    const record = pbRecord(e.collection, () => e.record, false, original)
    return modelEvent(e, record, type, 'error' in e ? e.error : undefined)
  }

/** `onModel…` over a collection family: `e.model` is the collection. */
export const collectionModelEventOf =
  (type: ModelAction) =>
  (e: CollectionEvent | CollectionSuccessEvent | CollectionErrorEvent): object =>
    modelEvent(e, collectionModel(e), type, 'error' in e ? e.error : undefined)
