import type { Collection } from './collections/model.js'
import type { RequestEvent } from './request-event.js'
import type { RecordData } from './request-info.js'
import type { RecordListResult } from './records/api.js'

/**
 * The event of `onRecordsListRequest`: fired once the page is read, before it is answered.
 * `records` are the page's items as the client will see them (the same array as
 * `result.items`); a handler may change or extend them, or answer itself.
 */
export interface RecordsListRequestEvent extends RequestEvent {
  collection: Collection
  records: Record<string, unknown>[]
  result: RecordListResult
}

/**
 * The event of `onRecordViewRequest`, `onRecordCreateRequest`, `onRecordUpdateRequest` and
 * `onRecordDeleteRequest` (PocketBase's `RecordRequestEvent`).
 * - view and delete: `record` is the stored record, loaded after the view or delete rule passed;
 *   the built-in action presents it (expand, hidden fields) or deletes it.
 * - create and update: before `e.next()`, `record` is the submitted data the record service will
 *   receive (the body's values, plus `id` on update); set or delete keys to change what is saved.
 *   Rules, validation and the model hooks run inside `e.next()`; after it, `record` is the saved
 *   record as the client will see it.
 */
export interface RecordRequestEvent extends RequestEvent {
  collection: Collection
  record: RecordData
}
