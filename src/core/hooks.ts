import { Hook, type HookEvent } from '../tools/hook.js'
import type { Collection } from './collections/model.js'
import type { App } from './app.js'
import type { BootstrapEvent, ServeEvent, TerminateEvent } from './lifecycle.js'
import type { RecordData, RequestInfo } from './request-info.js'

/** The event of a record create/update/delete hook. */
export interface RecordHookEvent extends HookEvent {
  app: App
  collection: Collection
  record: RecordData
  /** The stored record before an update. */
  original?: RecordData
  request: RequestInfo
}

/** The event of an after-success record hook. */
export interface RecordSuccessEvent extends HookEvent {
  app: App
  collection: Collection
  record: RecordData
}

/**
 * The hook families of an app. Handlers are tagged with collection names (or untagged for all).
 * - `onRecordCreate`/`onRecordUpdate`/`onRecordDelete` run **inside** the transaction, around
 *   the built-in write (call `e.next()` to perform it); throwing rolls everything back.
 * - `onRecordAfter*Success` run **after commit** and cannot undo the change.
 */
export interface AppHooks {
  onRecordCreate: Hook<RecordHookEvent>
  onRecordUpdate: Hook<RecordHookEvent>
  onRecordDelete: Hook<RecordHookEvent>
  onRecordAfterCreateSuccess: Hook<RecordSuccessEvent>
  onRecordAfterUpdateSuccess: Hook<RecordSuccessEvent>
  onRecordAfterDeleteSuccess: Hook<RecordSuccessEvent>
  // Lifecycle (see lifecycle.ts): the app opens, starts serving, stops.
  onBootstrap: Hook<BootstrapEvent>
  onServe: Hook<ServeEvent>
  onTerminate: Hook<TerminateEvent>
}

/** Creates the empty hook families. */
export function createHooks(): AppHooks {
  return {
    onRecordCreate: new Hook(),
    onRecordUpdate: new Hook(),
    onRecordDelete: new Hook(),
    onRecordAfterCreateSuccess: new Hook(),
    onRecordAfterUpdateSuccess: new Hook(),
    onRecordAfterDeleteSuccess: new Hook(),
    onBootstrap: new Hook(),
    onServe: new Hook(),
    onTerminate: new Hook(),
  }
}
