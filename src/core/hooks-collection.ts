import type { HookEvent } from '../tools/hook.js'
import type { App } from './app.js'
import type { Collection } from './collections/model.js'
import type { RequestEvent } from './request-event.js'

/**
 * The event of `onCollectionCreate`, `onCollectionUpdate` and `onCollectionDelete`: fired inside
 * the transaction around the write of `_collections` and the table's schema (`e.next()` performs
 * it, with `e.collection`); throwing rolls the whole change back. For an update, `original` is
 * the collection as stored before. Imports and the system collections go through these too.
 */
export interface CollectionEvent extends HookEvent {
  app: App
  collection: Collection
  original?: Collection
}

/** The event of `onCollectionAfter{Create,Update,Delete}Success`: after the commit. */
export interface CollectionSuccessEvent extends HookEvent {
  app: App
  collection: Collection
}

/**
 * The event of `onCollectionAfter{Create,Update,Delete}Error`: the write's hook chain or the write
 * itself failed; fired after the rollback, with what the write throws as `error`.
 */
export interface CollectionErrorEvent extends CollectionSuccessEvent {
  error: unknown
}

/** The event of `onCollectionsListRequest`: the page as it will be answered. */
export interface CollectionsListRequestEvent extends RequestEvent {
  /** The page's collections (the same array as `result.items`). */
  collections: Record<string, unknown>[]
  result: {
    page: number
    perPage: number
    totalItems: number
    totalPages: number
    items: Record<string, unknown>[]
  }
}

/** The event of `onCollectionViewRequest` and `onCollectionDeleteRequest`. */
export interface CollectionRequestEvent extends RequestEvent {
  collection: Collection
}

/**
 * The event of `onCollectionCreateRequest` and `onCollectionUpdateRequest`. Before `e.next()`,
 * `collection` is the submitted data the collection service will receive (plus `id` on update);
 * after it, the saved collection as answered.
 */
export interface CollectionWriteRequestEvent extends RequestEvent {
  collection: Record<string, unknown>
}

/** The event of `onCollectionsImportRequest`: the submitted `collections` and `deleteMissing`. */
export interface CollectionsImportRequestEvent extends RequestEvent {
  collectionsData: unknown
  deleteMissing: boolean
}
