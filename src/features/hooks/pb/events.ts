/**
 * The events a `*.pb.js` handler receives, shaped as PocketBase's: `e.app`, `e.record` (a
 * PocketBase-like record over the event's own data), `e.auth`, `e.requestInfo()`, `e.request`,
 * `e.json()`/`e.string()`/`e.noContent()`, and `e.next()`, which queues the rest of the chain
 * (see `invocation.ts`). Any other member throws, naming it.
 */
import type { Collection } from '../../../core/collections/model.js'
import type { RecordHookEvent, RecordSuccessEvent } from '../../../core/hooks.js'
import type {
  RecordRequestEvent,
  RecordsListRequestEvent,
} from '../../../core/hooks-record-request.js'
import type { RequestEvent } from '../../../core/request-event.js'
import { headerKey, isSuperuser, type RequestInfo } from '../../../core/request-info.js'
import type { RouteEvent } from '../script-api.js'
import { appFacade } from './app-facade.js'
import { enqueue } from './invocation.js'
import { pbRecord } from './record.js'
import { strict } from './unsupported.js'

/** `e.next()`: the rest of the chain, queued after what the handler queued before it. */
const nextOf = (e: { next(): Promise<void> }) => (): void => {
  enqueue('e.next', () => e.next())
}

/** The authenticated record of a request, as a PocketBase record, or null. */
function authOf(info: RequestInfo): object | null {
  return info.auth ? pbRecord(info.auth.collection, info.auth.record) : null
}

/** PocketBase's `e.requestInfo()`: `{auth, body, query, headers, method, context}`. */
function requestInfoOf(info: RequestInfo): () => object {
  return () =>
    strict('e.requestInfo()', {
      auth: authOf(info),
      body: info.body,
      query: info.query,
      headers: info.headers,
      method: info.method,
      context: info.context,
    })
}

/** What every request event offers (PocketBase's `core.RequestEvent`). */
function requestMembers(e: RequestEvent | RouteEvent): Record<string, unknown> {
  return {
    app: appFacade(() => e.app),
    auth: authOf(e.requestInfo),
    requestInfo: requestInfoOf(e.requestInfo),
    json: (status: number, body: unknown): void => e.json(status, body),
    string: (status: number, text: unknown): void => e.string(status, String(text)),
    noContent: (status?: number): void => e.noContent(status),
    hasSuperuserAuth: (): boolean => isSuperuser(e.requestInfo),
    realIP: (): string => e.requestInfo.ip,
    next: nextOf(e),
  }
}

/** `e.request` of a record request hook: its method and headers. */
function hookRequest(info: RequestInfo): object {
  return strict('e.request', {
    method: info.method,
    header: strict('e.request.header', {
      get: (name: string): string => info.headers[headerKey(String(name))] ?? '',
    }),
  })
}

/** The event of a script route or middleware. */
export function routeEventOf(e: RouteEvent): object {
  const url = new URL(e.request.url, 'http://localhost')
  const request = strict('e.request', {
    method: e.request.method,
    url: strict('e.request.url', {
      path: url.pathname,
      rawQuery: url.search.replace(/^\?/, ''),
      query: () =>
        strict('e.request.url.query()', {
          get: (name: string): string => url.searchParams.get(String(name)) ?? '',
        }),
      string: (): string => e.request.url,
    }),
    header: strict('e.request.header', {
      get: (name: string): string => e.request.header(String(name)),
    }),
    pathValue: (name: string): string => e.request.pathValue(String(name)),
  })
  return strict('e', {
    ...requestMembers(e),
    request,
    redirect: (status: number, to: string): void => e.redirect(status, to),
  })
}

/** The event of `onRecordViewRequest`/`Create…`/`Update…`/`Delete…Request`. */
export function recordRequestEventOf(e: RecordRequestEvent): object {
  return strict('e', {
    ...requestMembers(e),
    request: hookRequest(e.requestInfo),
    collection: e.collection,
    record: pbRecord(e.collection, () => e.record),
  })
}

/** The event of `onRecordsListRequest`: the page's records and the result. */
export function recordsListEventOf(e: RecordsListRequestEvent): object {
  const c: Collection = e.collection
  return strict('e', {
    ...requestMembers(e),
    request: hookRequest(e.requestInfo),
    collection: c,
    records: e.records.map((r) => pbRecord(c, () => r)),
    result: e.result,
  })
}

/** The event of `onRecordCreate`/`Update`/`Delete` (inside the transaction). */
export function recordEventOf(e: RecordHookEvent): object {
  return strict('e', {
    app: appFacade(() => e.app),
    collection: e.collection,
    record: pbRecord(e.collection, () => e.record),
    next: nextOf(e),
  })
}

/** The event of `onRecordAfter…Success` (after commit). */
export function recordSuccessEventOf(e: RecordSuccessEvent): object {
  return strict('e', {
    app: appFacade(() => e.app),
    collection: e.collection,
    record: pbRecord(e.collection, () => e.record),
    next: nextOf(e),
  })
}
