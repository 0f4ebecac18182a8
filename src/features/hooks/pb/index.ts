/**
 * The runner of PocketBase's `pb_hooks` files (`*.pb.js`): a file written for PocketBase's JSVM
 * runs unchanged against svcbase through a subset of PocketBase's globals, in a `node:vm`
 * context of its own (see docs/hook-scripts.md, "PocketBase's *.pb.js form"):
 * `routerAdd`, `routerUse`, the record, auth, collection and mailer hooks (`bindings.ts`),
 * `cronAdd`/`cronRemove`, `new Middleware` (`middleware.ts`), `$app`, `$apis` (`apis.ts`),
 * `$filesystem` (`filesystem.ts`), `$os` (`getenv`, `readFile`, `readDir`),
 * `$security`, `$template`, `$filepath`, `$mails` and `new MailerMessage` (`mails.ts`), `$dbx`,
 * `new DynamicModel`, `arrayOf` (`dbx.ts`, `db-query.ts`), `toString`, `console`,
 * `new Record(…)` and PocketBase's error classes. A file
 * that uses another PocketBase global or member fails to load (`load-check.ts`); what a scan
 * cannot see is a stub that throws `"<name>" is not supported…`.
 */
import { dirname } from 'node:path'
import { format } from 'node:util'
import vm from 'node:vm'
import type { App } from '../../../core/app.js'
import { messages } from '../../../core/errors.js'
import { placeMiddleware } from '../router.js'
import type { RouteHandler, ScriptApi } from '../script-api.js'
import { globalApp } from './app-facade.js'
import { apis, isNative, NATIVE } from './apis.js'
import { rememberRouteEvent } from './auth-response.js'
import { HOOK_NAMES, hookRegistrations } from './bindings.js'
import { unbindPbBootstrap } from './lifecycle.js'
import { routeEventOf } from './events.js'
import { collectionOf } from './find.js'
import { currentApp, emit, hostError, invoke } from './invocation.js'
import { httpGlobal } from './http-global.js'
import { cookieClass } from './http-cookie.js'
import { collectionGlobals } from './collection.js'
import { checkSupported } from './load-check.js'
import { filesystemGlobal } from './filesystem.js'
import { filepathGlobal, osGlobal, toText } from './os.js'
import { errorClass } from './errors.js'
import { pbRecord } from './record.js'
import { securityGlobal } from './security.js'
import { templateGlobal } from './template.js'
import { MISSING_CALLS, isStub, strict, unsupportedGlobals } from './unsupported.js'
import { MailerMessage, mailsGlobal } from './mails.js'
import { middlewareClass, middlewareSpec } from './middleware.js'
import { dbxGlobal } from './dbx.js'
import { arrayOf, dynamicModel } from './migrate/db.js'

/** The top level of a file may run this long (milliseconds) before its load fails. */
const LOAD_TIMEOUT_MS = 5_000

/** The handler a script passed, or a clear error naming the call. */
function handlerArg(fn: unknown, name: string): (e: object) => unknown {
  if (typeof fn !== 'function')
    throw new Error(messages.pbBadArgument({ name, expected: 'a handler function' }))
  return fn as (e: object) => unknown
}

/** The globals of one file's context. */
function globals(file: string, api: ScriptApi, bootstrapIds: string[]): Record<string, unknown> {
  const app: App = api.app
  const appNow = (): App => currentApp() ?? app

  /** A handler given as its source text, compiled in the file's context (PocketBase's form). */
  const compile = (src: string, name: string): unknown => {
    try {
      return vm.runInContext(`(${src})`, out, { filename: file }) as unknown
    } catch {
      throw new Error(messages.pbBadArgument({ name, expected: 'a function or its source text' }))
    }
  }
  const route = (fn: unknown, name: string): RouteHandler => {
    const spec = middlewareSpec(fn)
    if (spec) {
      const inner = route(spec.fn, name)
      const place = { priority: spec.priority, ...(spec.id !== '' ? { id: spec.id } : {}) }
      return placeMiddleware((e) => inner(e), place)
    }
    if (isNative(fn)) return fn[NATIVE]
    const handler = handlerArg(typeof fn === 'string' ? compile(fn, name) : fn, name)
    return (e) => invoke(e.app, file, () => handler(rememberRouteEvent(routeEventOf(e), e)))
  }

  const registrations = hookRegistrations(api.hooks, api.app, bootstrapIds)
  const hookBinder =
    (name: string) =>
    (fn: unknown, ...tags: unknown[]): void => {
      const handler = handlerArg(fn, name)
      registrations[name]?.(
        (app, facade) => invoke(app, file, () => handler(facade)),
        tags.map(String),
      )
    }

  const log =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]): void => {
      // Printed once the handler's run is kept (a run stopped for `$http.send` prints nothing).
      const logger = appNow().logger
      const line = format(...args)
      emit(() => logger[level](line, { script: file }))
    }

  const out: Record<string, unknown> = {
    ...unsupportedGlobals(),
    // Collection, Field, the typed field classes and unmarshal, as in migrations.
    ...collectionGlobals(),
    __hooks: dirname(file),
    routerAdd: (method: unknown, path: unknown, handler: unknown, ...middlewares: unknown[]) => {
      api.routerAdd(
        String(method),
        String(path),
        route(handler, 'routerAdd'),
        ...middlewares.map((m) => route(m, 'routerAdd')),
      )
    },
    routerUse: (...handlers: unknown[]) => {
      for (const h of handlers) api.routerUse(route(h, 'routerUse'))
    },
    cronAdd: (id: unknown, expression: unknown, fn: unknown) => {
      const handler = handlerArg(fn, 'cronAdd')
      api.cronAdd(String(id), String(expression), () => invoke(app, file, () => handler({}), 'job'))
    },
    cronRemove: (id: unknown) => api.cronRemove(String(id)),
    $app: globalApp(app),
    $dbx: dbxGlobal(),
    DynamicModel: function DynamicModel(shape?: unknown) {
      return dynamicModel(shape)
    },
    arrayOf,
    $apis: apis(dirname(file)),
    $mails: mailsGlobal(app),
    $http: httpGlobal(app),
    MailerMessage,
    Cookie: cookieClass(),
    Middleware: middlewareClass(),
    $security: securityGlobal(),
    $template: templateGlobal(dirname(file)),
    $os: osGlobal(dirname(file)),
    $filepath: filepathGlobal(),
    $filesystem: filesystemGlobal(dirname(file), app),
    toString: (v: unknown): string => toText(v),
    console: strict('console', {
      log: log('info'),
      info: log('info'),
      debug: log('debug'),
      warn: log('warn'),
      error: log('error'),
    }),
    Record: function Record(collection: unknown, data?: unknown) {
      const rec = pbRecord(collectionOf(appNow(), collection, 'new Record'), {}, true)
      if (data && typeof data === 'object') rec.load(data as Record<string, unknown>)
      return rec
    },
    ApiError: errorClass(null),
    BadRequestError: errorClass(400),
    UnauthorizedError: errorClass(401),
    ForbiddenError: errorClass(403),
    NotFoundError: errorClass(404),
    TooManyRequestsError: errorClass(429),
    InternalServerError: errorClass(500),
  }
  for (const name of HOOK_NAMES) out[name] = hookBinder(name)
  return out
}

/**
 * Runs one `*.pb.js` file once, synchronously: its top-level code binds routes, hooks and jobs
 * through `api`. Throws on a load error (a use of a member or global svcbase lacks anywhere in
 * the file's text, see `load-check.ts`; a syntax error, a throw at the top level, a top level
 * running over 5 s); the error's stack names `file:line`.
 */
export function runPbScript(file: string, source: string, api: ScriptApi): void {
  const bootstrapIds: string[] = [] // its `onBootstrap` handlers, removed if it fails
  const scope = globals(file, api, bootstrapIds)
  // The calls a file may not make: PocketBase's globals still stubs in its context.
  const missing = MISSING_CALLS.filter((n) => isStub(scope[n]))
  checkSupported(file, source, scope, missing)
  const context = vm.createContext(scope, { name: file })
  try {
    const script = new vm.Script(source, { filename: file })
    script.runInContext(context, { timeout: LOAD_TIMEOUT_MS, displayErrors: false })
  } catch (err) {
    unbindPbBootstrap(api.app, bootstrapIds)
    throw hostError(err)
  }
}
