/**
 * The batch feature's hook family, PocketBase's `onBatchRequest`, declared here and created when
 * the feature registers (`core/hooks-features.ts`): around the run of a `POST /api/batch` whose
 * body was read and checked. `e.batch` holds the items (`{method, url, body, headers}`); a
 * handler may change them before `e.next()` runs them in one transaction, or answer itself
 * without calling it (nothing runs).
 */
import type { App } from '../../core/app.js'
import { addFeatureHooks } from '../../core/hooks-features.js'
import type { RequestEvent } from '../../core/request-event.js'
import { Hook } from '../../tools/hook.js'
import type { BatchItem } from './request.js'

/** The event of `onBatchRequest`. */
export interface BatchRequestEvent extends RequestEvent {
  batch: BatchItem[]
}

declare module '../../core/hooks-features.js' {
  interface FeatureHooks {
    /** Around the run of a batch (features/batch/hooks.ts). */
    onBatchRequest: Hook<BatchRequestEvent>
  }
}

/** Adds the feature's family to the app's hooks. */
export function addBatchHooks(app: App): void {
  addFeatureHooks(app, { onBatchRequest: new Hook() })
}
