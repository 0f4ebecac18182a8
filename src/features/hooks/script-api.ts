/**
 * The contract between the hook-script loader (`loader.ts`, our `*.js`/`*.mjs`/`*.ts` form) and
 * the PocketBase-compatible runner of `*.pb.js` files (`pb/`): what a script may use. The
 * loader builds one `ScriptApi` per loaded file; everything a script binds through it (routes,
 * middlewares, hooks, jobs) is recorded with the file, so a reload (`--dev`) removes exactly
 * what that file added.
 */
import type { App } from '../../core/app.js'
import type { AppHooks } from '../../core/hooks.js'
import type { RecordData, RequestInfo } from '../../core/request-info.js'
import type { HookResponse } from '../../core/request-event.js'

/** The request of a script route, as a handler sees it (PocketBase's `e.request`). */
export interface ScriptRequest {
  method: string
  /** The path and query as received. */
  url: string
  /** A `{name}` path parameter of the route's pattern ('' when absent). */
  pathValue(name: string): string
  /** A request header, case-insensitive ('' when absent). */
  header(name: string): string
  /** The protocol, as Go writes it (`HTTP/1.1`), when known. */
  proto?: string
  /** The peer's address and port (`ip:port`), when known. */
  remoteAddr?: string
}

/**
 * The event of a script route and of a script middleware (PocketBase's `core.RequestEvent` as
 * a router handler sees it). Answer with `json`/`string`/`noContent`/`redirect`; a middleware
 * calls `await e.next()` to go on to the route.
 */
export interface RouteEvent {
  app: App
  request: ScriptRequest
  /** Auth, query, body (parsed JSON, urlencoded or multipart fields), headers, method, ip. */
  requestInfo: RequestInfo
  /** The authenticated record, or null for a guest. */
  auth: RecordData | null
  /** The answer given so far, or null (an empty 204-less 200 is sent when none). */
  response: HookResponse | null
  json(status: number, body: unknown): void
  string(status: number, text: string): void
  noContent(status?: number): void
  redirect(status: number, url: string): void
  /** Goes on to the next middleware, then the route handler. */
  next(): Promise<void>
}

/** A route handler or middleware; an `ApiError` thrown becomes its status and message. */
export type RouteHandler = (e: RouteEvent) => unknown

/** What a hook script may use: the app and everything it binds, recorded per file. */
export interface ScriptApi {
  /** The file being loaded (absolute path), for messages. */
  readonly file: string
  /** The app (records through `app.records`, transactions, settings, …). */
  readonly app: App
  /**
   * The app's hook families; every handler bound through them is unbound when the file is
   * reloaded or the server stops.
   */
  readonly hooks: AppHooks
  /** Adds a route; `pattern` uses `{name}` parameters (`/api/hello/{name}`), `{path...}` a rest. */
  routerAdd(
    method: string,
    pattern: string,
    handler: RouteHandler,
    ...middlewares: RouteHandler[]
  ): void
  /**
   * Adds a global middleware (PocketBase's `routerUse`): around every route, the built-in ones
   * included, in binding order.
   */
  routerUse(handler: RouteHandler): void
  /** Adds a scheduled job with source `hooks` (`_cron_jobs`). */
  cronAdd(id: string, expression: string, fn: () => unknown): void
  /** Removes a job this file added. */
  cronRemove(id: string): void
}
