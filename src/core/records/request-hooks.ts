import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import { badRequest, messages } from '../errors.js'
import { requestEvent, triggerRequest, type HookResponse } from '../request-event.js'
import type { RecordData, RequestInfo } from '../request-info.js'
import type { UploadedFile } from './api.js'

/**
 * The records API's actions wrapped in PocketBase's record request hooks
 * (`onRecordsListRequest`, `onRecordViewRequest`, `onRecordCreateRequest`,
 * `onRecordUpdateRequest`, `onRecordDeleteRequest`), tagged with the collection's id and name.
 * Each returns the answer the hooks left: the records routes send it and batch items (run with
 * the batch's transactional app) collect it. See `hooks-record-request.ts` for the events.
 */

const tags = (c: Collection): string[] => [c.id, c.name]

/** `GET …/records`: the page is read, then `onRecordsListRequest` answers it. */
export async function listRequest(
  app: App,
  c: Collection,
  query: Record<string, unknown>,
  info: RequestInfo,
): Promise<HookResponse> {
  const result = await app.records.list(c, query, info)
  return triggerRequest(
    app.hooks.onRecordsListRequest,
    requestEvent(app, info, { collection: c, records: result.items, result }),
    (e) => e.json(200, e.result),
    tags(c),
  )
}

/** `GET …/records/{id}`: the record passes the viewRule, then `onRecordViewRequest`. */
export async function viewRequest(
  app: App,
  c: Collection,
  id: string,
  info: RequestInfo,
): Promise<HookResponse> {
  // NB: with no handler bound, the plain view (one load and one presentation, no event).
  if (app.hooks.onRecordViewRequest.length === 0) {
    return { status: 200, kind: 'json', body: await app.records.view(c, id, info) }
  }
  const record = await app.records.load(c, id, 'viewRule', info)
  return triggerRequest(
    app.hooks.onRecordViewRequest,
    requestEvent(app, info, { collection: c, record }),
    async (e) => {
      const [out] = await e.app.records.present(e.collection, [e.record], e.requestInfo)
      e.json(200, out)
    },
    tags(c),
  )
}

/** `POST …/records`: `onRecordCreateRequest` around the record service's create. */
export async function createRequest(
  app: App,
  c: Collection,
  values: Record<string, unknown>,
  info: RequestInfo,
  files: readonly UploadedFile[],
): Promise<HookResponse> {
  return triggerRequest(
    app.hooks.onRecordCreateRequest,
    requestEvent(app, info, { collection: c, record: { ...values } }),
    async (e) => {
      e.record = await e.app.records.create(e.collection, e.record, e.requestInfo, files)
      e.json(200, e.record)
    },
    tags(c),
  )
}

/**
 * `PATCH …/records/{id}`: `onRecordUpdateRequest` around the record service's update. The event's
 * record shows the path's `id`; it reaches the service only when the body had one or a handler
 * changed it (so `@request.body` stays what was sent).
 */
export async function updateRequest(
  app: App,
  c: Collection,
  id: string,
  values: Record<string, unknown>,
  info: RequestInfo,
  files: readonly UploadedFile[],
): Promise<HookResponse> {
  const sentId = 'id' in values
  const record: RecordData = sentId ? { ...values } : { id, ...values }
  return triggerRequest(
    app.hooks.onRecordUpdateRequest,
    requestEvent(app, info, { collection: c, record }),
    async (e) => {
      const body = { ...e.record }
      if (!sentId && body.id === id) delete body.id
      e.record = await e.app.records.update(e.collection, id, body, e.requestInfo, files)
      e.json(200, e.record)
    },
    tags(c),
  )
}

/** `DELETE …/records/{id}`: the record passes the deleteRule, then `onRecordDeleteRequest`. */
export async function deleteRequest(
  app: App,
  c: Collection,
  id: string,
  info: RequestInfo,
): Promise<HookResponse> {
  if (c.type === 'view') throw badRequest(messages.unsupportedCollectionType)
  const record = await app.records.load(c, id, 'deleteRule', info)
  return triggerRequest(
    app.hooks.onRecordDeleteRequest,
    requestEvent(app, info, { collection: c, record }),
    async (e) => {
      // The service loads it again in its transaction, so the rule and the delete agree.
      await e.app.records.delete(e.collection, String(e.record.id), e.requestInfo)
      e.noContent(204)
    },
    tags(c),
  )
}
