/**
 * The events a `*.pb.js` handler receives, shaped as PocketBase's: `e.app`, `e.record` (a
 * PocketBase-like record over the event's own data), `e.auth`, `e.requestInfo()`, `e.request`,
 * `e.json()`/`e.string()`/`e.noContent()`, and `e.next()`, which queues the rest of the chain
 * (see `invocation.ts`); a route's event has the members of `route-members.ts` too. Any other
 * member throws, naming it.
 */
import type { Collection } from '../../../core/collections/model.js'
import type { RecordHookEvent, RecordSuccessEvent } from '../../../core/hooks.js'
import type {
  RecordRequestEvent,
  RecordsListRequestEvent,
} from '../../../core/hooks-record-request.js'
import type { RequestEvent } from '../../../core/request-event.js'
import {
  headerKey,
  isSuperuser,
  type RecordData,
  type RequestInfo,
} from '../../../core/request-info.js'
import type { ScriptRouteEvent } from '../route-event.js'
import type { RouteEvent } from '../script-api.js'
import { appFacade } from './app-facade.js'
import { storedRecord } from './find.js'
import { apiErrorOf } from './errors.js'
import { enqueue } from './invocation.js'
import { pbRecord } from './record.js'
import { formFile, routeMembers } from './route-members.js'
import { httpRequestMembers } from './request-members.js'
import { strict } from './unsupported.js'

/** `e.next()`: the rest of the chain, queued after what the handler queued before it. */
const nextOf = (e: { next(): Promise<void> }) => (): void => {
  enqueue('e.next', () => e.next())
}

/** A script value as text: a string as it is, PocketBase's byte array decoded, nothing as ''. */
function textOf(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return ''
  if (Array.isArray(v)) return Buffer.from(v.map((n) => Number(n) & 0xff)).toString('utf8')
  return typeof v === 'object' ? JSON.stringify(v) : `${v as number}`
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

/**
 * A JSON answer's body as plain values: records become their public export (`toJSON`) and no
 * script proxy reaches the HTTP layer (which probes bodies for streams and buffers).
 */
export function plain(body: unknown): unknown {
  return body === undefined ? null : (JSON.parse(JSON.stringify(body)) as unknown)
}

/** What every request event offers (PocketBase's `core.RequestEvent`). */
export function requestMembers(e: RequestEvent | RouteEvent): Record<string, unknown> {
  return {
    app: appFacade(() => e.app),
    auth: authOf(e.requestInfo),
    requestInfo: requestInfoOf(e.requestInfo),
    json: (status: number, body: unknown): void => e.json(status, plain(body)),
    string: (status: number, text: unknown): void => e.string(status, String(text)),
    noContent: (status?: number): void => e.noContent(status),
    hasSuperuserAuth: (): boolean => isSuperuser(e.requestInfo),
    realIP: (): string => e.requestInfo.ip,
    remoteIP: (): string => e.requestInfo.ip,
    get: (key: unknown): unknown => storeOf(e.requestInfo).get(String(key)) ?? null,
    set: (key: unknown, value: unknown): void =>
      void storeOf(e.requestInfo).set(String(key), value),
    getAll: (): Record<string, unknown> => Object.fromEntries(storeOf(e.requestInfo)),
    setAll: (values: unknown): void => {
      if (values && typeof values === 'object')
        for (const [k, v] of Object.entries(values)) storeOf(e.requestInfo).set(k, v)
    },
    error: (status: unknown, message: unknown, data: unknown) => apiErrorOf(status, message, data),
    badRequestError: (message: unknown, data: unknown) => apiErrorOf(400, message, data),
    unauthorizedError: (message: unknown, data: unknown) => apiErrorOf(401, message, data),
    forbiddenError: (message: unknown, data: unknown) => apiErrorOf(403, message, data),
    notFoundError: (message: unknown, data: unknown) => apiErrorOf(404, message, data),
    tooManyRequestsError: (message: unknown, data: unknown) => apiErrorOf(429, message, data),
    internalServerError: (message: unknown, data: unknown) => apiErrorOf(500, message, data),
    next: nextOf(e),
  }
}

/** The per-request store of `e.get`/`e.set`, shared along the chain (keyed by the request). */
const stores = new WeakMap<object, Map<string, unknown>>()

function storeOf(e: object): Map<string, unknown> {
  let store = stores.get(e)
  if (!store) stores.set(e, (store = new Map<string, unknown>()))
  return store
}

/** `e.request` of a record request hook: its method and headers. */
export function hookRequest(info: RequestInfo): object {
  return strict('e.request', {
    method: info.method,
    header: strict('e.request.header', {
      get: (name: string): string => info.headers[headerKey(String(name))] ?? '',
    }),
  })
}

/** True for the event `route-event.ts` builds (every script route's and middleware's). */
const isScriptRouteEvent = (e: RouteEvent): e is ScriptRouteEvent => 'cookies' in e

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
          has: (name: string): boolean => url.searchParams.has(String(name)),
        }),
      string: (): string => e.request.url,
    }),
    header: strict('e.request.header', {
      get: (name: string): string => e.request.header(String(name)),
      values: (name: string): string[] => {
        const v = e.request.header(String(name))
        return v === '' ? [] : [v]
      },
    }),
    pathValue: (name: string): string => e.request.pathValue(String(name)),
    ...httpRequestMembers(e, url),
    ...(isScriptRouteEvent(e) ? { formFile: (key: unknown) => formFile(e, key) } : {}),
  })
  const writers = e as Partial<Pick<ScriptRouteEvent, 'html' | 'blob'>>
  return strict('e', {
    ...requestMembers(e),
    ...(isScriptRouteEvent(e) ? routeMembers(e) : {}),
    request,
    redirect: (status: number, to: string): void => e.redirect(status, to),
    ...(writers.html && writers.blob
      ? {
          html: (status: number, text: unknown): void => writers.html?.(status, textOf(text)),
          blob: (status: number, type: unknown, data: unknown): void =>
            writers.blob?.(status, textOf(type), textOf(data)),
        }
      : {}),
  })
}

/**
 * The live data of an update request's record as PocketBase shows it: the submitted values over
 * the stored record (read once, when a value the body lacks is asked for); writes go to the
 * submitted values, which the record service receives.
 */
function submittedOverStored(e: RecordRequestEvent): {
  source: () => RecordData
  stored: () => RecordData | undefined
} {
  let stored: RecordData | undefined | null = null
  const fallback = (): RecordData | undefined => {
    if (stored === null)
      stored = storedRecord(e.app, e.collection, typeof e.record.id === 'string' ? e.record.id : '')
    return stored
  }
  const source = () =>
    new Proxy(e.record, {
      get: (t, k) => (typeof k !== 'string' || k in t ? t[k as string] : fallback()?.[k]),
    })
  return { source, stored: fallback }
}

/** The event of `onRecordViewRequest`/`Create…`/`Delete…Request`. */
export function recordRequestEventOf(e: RecordRequestEvent): object {
  return strict('e', {
    ...requestMembers(e),
    request: hookRequest(e.requestInfo),
    collection: e.collection,
    record: pbRecord(e.collection, () => e.record),
  })
}

/** The event of `onRecordUpdateRequest`: its record reads the stored values the body lacks. */
export function recordUpdateRequestEventOf(e: RecordRequestEvent): object {
  const record = submittedOverStored(e)
  return strict('e', {
    ...requestMembers(e),
    request: hookRequest(e.requestInfo),
    collection: e.collection,
    record: pbRecord(e.collection, record.source, false, record.stored),
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
    record: pbRecord(
      e.collection,
      () => e.record,
      false,
      () => e.original,
    ),
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
