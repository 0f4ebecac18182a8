/**
 * The files feature's hook families (PocketBase's `onFileDownloadRequest` and
 * `onFileTokenRequest`), declared here and created when the feature registers
 * (`core/hooks-features.ts`).
 * - `onFileDownloadRequest` around the serving of a file, once the record's view rule let the
 *   requester through: `e.servedPath` (the storage key: the original's or its thumbnail's) and
 *   `e.servedName` (the name the answer's headers give) may be changed; `e.thumbError` says why
 *   a thumbnail asked for is not served (null otherwise). Not calling `e.next()` serves nothing
 *   (the handler's answer, or an empty 200). Triggered with the collection's id and name.
 * - `onFileTokenRequest` around the answer of `POST /api/files/token`: `e.token` may be changed;
 *   `e.record` is the authenticated record. `e.collection` is null and the hook is triggered
 *   without tags, as PocketBase 0.40.4's: a handler bound with tags never runs.
 */
import type { App } from '../../core/app.js'
import type { Collection, Field } from '../../core/collections/model.js'
import { addFeatureHooks } from '../../core/hooks-features.js'
import type { RequestEvent } from '../../core/request-event.js'
import type { RecordData } from '../../core/request-info.js'
import { Hook } from '../../tools/hook.js'

/** The event of `onFileDownloadRequest`. */
export interface FileDownloadRequestEvent extends RequestEvent {
  collection: Collection
  record: RecordData
  fileField: Field
  /** The storage key served (`<collectionId>/<recordId>/<name>`, or a thumbnail's). */
  servedPath: string
  /** The file name of the answer's headers. */
  servedName: string
  /** Why the thumbnail asked for is not served, or null. */
  thumbError: string | null
}

/** The event of `onFileTokenRequest`. */
export interface FileTokenRequestEvent extends RequestEvent {
  /** Always null (PocketBase sets none). */
  collection: null
  /** The authenticated record the token is for. */
  record: RecordData
  /** The authenticated record's collection (for the handler's tags). */
  recordCollection: Collection
  token: string
}

declare module '../../core/hooks-features.js' {
  interface FeatureHooks {
    /** Around the serving of a file (features/files/hooks.ts). */
    onFileDownloadRequest: Hook<FileDownloadRequestEvent>
    /** Around the answer of a file token (features/files/hooks.ts). */
    onFileTokenRequest: Hook<FileTokenRequestEvent>
  }
}

/** Adds the feature's families to the app's hooks. */
export function addFileHooks(app: App): void {
  addFeatureHooks(app, { onFileDownloadRequest: new Hook(), onFileTokenRequest: new Hook() })
}

/** True for a storage key a handler may serve: relative, with no `..` or empty segment. */
export function isServableKey(key: unknown): key is string {
  if (typeof key !== 'string' || key === '' || key.includes('\\') || key.includes('\0'))
    return false
  return key.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
}
