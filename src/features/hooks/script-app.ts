/**
 * What one loaded script binds, and the two faces it binds through: the {@link ScriptApi} of
 * `script-api.ts` (shared with the `*.pb.js` runner) and, for our form, the script app: the
 * real `App` plus `routerAdd`, `routerUse`, `cronAdd`, `ApiError` and the hook families as
 * methods (`app.onRecordCreate('posts', handler)`). Everything goes through a
 * {@link ScriptOwner}, so unloading a file removes exactly what it bound.
 */
import type { App } from '../../core/app.js'
import { ApiError } from '../../core/errors.js'
import type { AppHooks } from '../../core/hooks.js'
import { internalRequest } from '../../core/request-info.js'
import type { Hook, HookEvent, HookHandler, HookHandlerOptions } from '../../tools/hook.js'
import type { ScriptRouter } from './router.js'
import type { RouteHandler, ScriptApi } from './script-api.js'

/** A global middleware (`routerUse`) and the file that added it. */
export interface Middleware {
  file: string
  fn: RouteHandler
}

/** What the scripts of one server share: the app, the route table and the global middlewares. */
export interface ScriptsContext {
  app: App
  router: ScriptRouter
  /** Replaced, never mutated, so a request keeps the list it started with. */
  middlewares: readonly Middleware[]
}

type Family = keyof AppHooks

/** Everything one script file bound, so that it can be unbound at once. */
export class ScriptOwner {
  readonly hooks: { family: Family; id: string }[] = []
  readonly jobs = new Set<string>()
  private closed = false

  constructor(
    readonly file: string,
    private readonly ctx: ScriptsContext,
  ) {}

  /** Throws once the file was unloaded (a timer of an old version binding late). */
  check(what: string): void {
    if (this.closed)
      throw new Error(`${what}: this version of ${this.file} was unloaded (reloaded or stopped)`)
  }

  /** Removes every route, middleware, hook handler and job of the file. */
  unload(): void {
    this.closed = true
    const { app, router } = this.ctx
    router.removeFile(this.file)
    this.ctx.middlewares = this.ctx.middlewares.filter((m) => m.file !== this.file)
    for (const { family, id } of this.hooks)
      (app.hooks[family] as unknown as Hook<HookEvent>).unbind(id)
    this.hooks.length = 0
    for (const id of this.jobs) app.cron.remove(id)
    this.jobs.clear()
  }
}

/** The app's hook families, each `bind` recorded with the owner. */
function trackedHooks(app: App, owner: ScriptOwner): AppHooks {
  const out: Partial<Record<Family, unknown>> = {}
  for (const family of Object.keys(app.hooks) as Family[]) {
    const hook = app.hooks[family] as unknown as Hook<HookEvent>
    out[family] = new Proxy(hook, {
      get: (target, key) => {
        if (key === 'bind')
          return (
            handler: HookHandler<HookEvent> | HookHandlerOptions<HookEvent>,
            tags?: readonly string[],
          ) => {
            owner.check(family)
            const id = target.bind(handler, tags)
            owner.hooks.push({ family, id })
            return id
          }
        const value = Reflect.get(target, key, target) as unknown
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value
      },
    })
  }
  return out as AppHooks
}

/** Builds the {@link ScriptApi} of one file. */
export function createScriptApi(owner: ScriptOwner, ctx: ScriptsContext): ScriptApi {
  const { app, router } = ctx
  const file = owner.file
  return {
    file,
    app,
    hooks: trackedHooks(app, owner),
    routerAdd(method, pattern, handler, ...middlewares) {
      owner.check('routerAdd')
      router.add({ method, pattern, handler, middlewares, file })
    },
    routerUse(handler) {
      owner.check('routerUse')
      if (typeof handler !== 'function')
        throw new Error('routerUse: the middleware must be a function')
      ctx.middlewares = [...ctx.middlewares, { file, fn: handler }]
    },
    cronAdd(id, expression, fn) {
      owner.check('cronAdd')
      if (typeof id !== 'string' || id === '') throw new Error('cronAdd: the job needs an id')
      if (typeof fn !== 'function') throw new Error(`cronAdd ${id}: the job must be a function`)
      if (!owner.jobs.has(id) && app.cron.list().some((j) => j.id === id))
        throw new Error(`cronAdd: a job "${id}" exists already (a system job or another script's)`)
      app.cron.add(id, String(expression), fn as () => Promise<void>, { source: 'hooks' })
      owner.jobs.add(id)
    },
    cronRemove(id) {
      owner.check('cronRemove')
      if (!owner.jobs.has(id)) return
      app.cron.remove(id)
      owner.jobs.delete(id)
    },
  }
}

/** The script app's additions to the `App`: the binding functions and the hook families. */
export type ScriptApp = App &
  Pick<ScriptApi, 'routerAdd' | 'routerUse' | 'cronAdd' | 'cronRemove'> & {
    ApiError: typeof ApiError
    /** A `RequestInfo` for the script's own record calls (no auth: rules apply as to a guest). */
    internalRequest: typeof internalRequest
  } & {
    [F in Family]: (...args: unknown[]) => string
  }

/**
 * Splits the arguments of `app.onX(…)`: the handler (a function or `{id, priority, func}`) and
 * the tags (collection names or ids, before or after it, arrays flattened).
 */
function familyArgs(family: Family, args: unknown[]): { handler: unknown; tags: string[] } {
  const isHandler = (a: unknown) =>
    typeof a === 'function' ||
    (typeof a === 'object' && a !== null && !Array.isArray(a) && 'func' in a)
  const handlers = args.filter(isHandler)
  if (handlers.length !== 1)
    throw new Error(`${family}: give one handler function (and collection names as tags)`)
  const tags = args.filter((a) => !isHandler(a)).flat()
  for (const t of tags)
    if (typeof t !== 'string') throw new Error(`${family}: a tag must be a collection name or id`)
  return { handler: handlers[0], tags: tags as string[] }
}

/** The app a script's default export receives (see {@link ScriptApp}). */
export function createScriptApp(api: ScriptApi): ScriptApp {
  const extras: Record<string, unknown> = {
    hooks: api.hooks,
    routerAdd: api.routerAdd.bind(api),
    routerUse: api.routerUse.bind(api),
    cronAdd: api.cronAdd.bind(api),
    cronRemove: api.cronRemove.bind(api),
    ApiError,
    internalRequest,
  }
  for (const family of Object.keys(api.hooks) as Family[]) {
    extras[family] = (...args: unknown[]) => {
      const { handler, tags } = familyArgs(family, args)
      const hook = api.hooks[family] as unknown as Hook<HookEvent>
      return hook.bind(handler as HookHandler<HookEvent>, tags)
    }
  }
  const app = api.app
  return new Proxy(app, {
    get: (target, key) =>
      typeof key === 'string' && key in extras
        ? extras[key]
        : (Reflect.get(target, key, target) as unknown),
    has: (target, key) => (typeof key === 'string' && key in extras) || key in target,
  }) as ScriptApp
}
