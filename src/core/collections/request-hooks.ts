import type { App } from '../app.js'
import { requestEvent, triggerRequest, type HookResponse } from '../request-event.js'
import type { RequestInfo } from '../request-info.js'
import { collectionToJSON } from './codec.js'
import { listCollections } from './list.js'
import type { Collection } from './model.js'

/**
 * The collections API's actions wrapped in PocketBase's collection request hooks
 * (`onCollectionsListRequest`, `onCollectionViewRequest`, `onCollectionCreateRequest`,
 * `onCollectionUpdateRequest`, `onCollectionDeleteRequest`, `onCollectionsImportRequest`), run
 * outside any transaction; each returns the answer the hooks left. Events: `hooks-collection.ts`.
 */

const tags = (c: Collection): string[] => [c.id, c.name]

/** `GET /api/collections`: the page is read, then `onCollectionsListRequest` answers it. */
export async function listRequest(
  app: App,
  query: Record<string, unknown>,
  info: RequestInfo,
): Promise<HookResponse> {
  const result = await listCollections(app, query)
  return triggerRequest(
    app.hooks.onCollectionsListRequest,
    requestEvent(app, info, { collections: result.items, result }),
    (e) => e.json(200, e.result),
  )
}

/** `GET /api/collections/{c}` through `onCollectionViewRequest`. */
export async function viewRequest(
  app: App,
  c: Collection,
  info: RequestInfo,
): Promise<HookResponse> {
  return triggerRequest(
    app.hooks.onCollectionViewRequest,
    requestEvent(app, info, { collection: c }),
    (e) => e.json(200, collectionToJSON(e.collection)),
    tags(c),
  )
}

/** `POST /api/collections`: `onCollectionCreateRequest` around the collection service's create. */
export async function createRequest(
  app: App,
  input: Record<string, unknown>,
  info: RequestInfo,
): Promise<HookResponse> {
  return triggerRequest(
    app.hooks.onCollectionCreateRequest,
    requestEvent(app, info, { collection: { ...input } }),
    async (e) => {
      e.collection = collectionToJSON(await e.app.collections.create(e.collection))
      e.json(200, e.collection)
    },
    typeof input.name === 'string' ? [input.name] : [],
  )
}

/**
 * `PATCH /api/collections/{c}`: `onCollectionUpdateRequest` around the service's update. The
 * event shows the collection's `id`; it reaches the service only if sent or changed.
 */
export async function updateRequest(
  app: App,
  existing: Collection,
  input: Record<string, unknown>,
  info: RequestInfo,
): Promise<HookResponse> {
  const sentId = 'id' in input
  const collection = sentId ? { ...input } : { id: existing.id, ...input }
  return triggerRequest(
    app.hooks.onCollectionUpdateRequest,
    requestEvent(app, info, { collection }),
    async (e) => {
      const body = { ...e.collection }
      if (!sentId && body.id === existing.id) delete body.id
      e.collection = collectionToJSON(await e.app.collections.update(existing.id, body))
      e.json(200, e.collection)
    },
    tags(existing),
  )
}

/** `DELETE /api/collections/{c}`: `onCollectionDeleteRequest` around the service's delete. */
export async function deleteRequest(
  app: App,
  c: Collection,
  info: RequestInfo,
): Promise<HookResponse> {
  return triggerRequest(
    app.hooks.onCollectionDeleteRequest,
    requestEvent(app, info, { collection: c }),
    async (e) => {
      await e.app.collections.delete(e.collection.id)
      e.noContent(204)
    },
    tags(c),
  )
}

/** `PUT /api/collections/import`: `onCollectionsImportRequest` around the import. */
export async function importRequest(
  app: App,
  collectionsData: unknown,
  deleteMissing: boolean,
  info: RequestInfo,
): Promise<HookResponse> {
  return triggerRequest(
    app.hooks.onCollectionsImportRequest,
    requestEvent(app, info, { collectionsData, deleteMissing }),
    async (e) => {
      await e.app.collections.import(e.collectionsData, e.deleteMissing)
      e.noContent(204)
    },
  )
}
