/**
 * The table of script routes (`routerAdd`), kept apart from Fastify's: Fastify cannot add or
 * remove routes once it is ready, and `--dev` reloads change them while the server runs. One
 * Fastify catch-all (`routes/scripts.ts`) looks requests up here. Patterns are PocketBase's (Go
 * `ServeMux`): `{name}` for one segment, `{name...}` for the rest of the path, a trailing `/` for
 * every path under it, `{$}` for the path ending in `/` exactly; the most specific route wins.
 * Anything else in a segment is literal text, `*` and `:` included (`/s/*` matches `/s/*` and
 * `/s/%2A` only). A path that misses but whose form with a trailing `/` matches exactly is
 * redirected there (307), as `ServeMux` does (`redirect` of `RouteMatch`).
 */
import { basename } from 'node:path'
import Router from 'find-my-way'
import type { RouteHandler } from './script-api.js'

/**
 * The methods a script route may take. HEAD also follows GET. An OPTIONS route loads, as in
 * PocketBase, but never runs: the CORS layer answers every OPTIONS request first (204), in
 * PocketBase and in svcbase alike.
 */
export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const

/** find-my-way reads `*` as a wildcard anywhere: a literal `*` is kept as this character. */
const STAR = '\u0001'

/** A script route as added. */
export interface ScriptRoute {
  method: string
  /** The pattern as the script wrote it. */
  pattern: string
  handler: RouteHandler
  middlewares: RouteHandler[]
  /** The script file that added it (absolute path). */
  file: string
  /** The pattern's `{name...}` wildcard name (find-my-way calls it `*`), or null. */
  rest: string | null
  /** True when the last segment takes the rest of the path (`{name...}` or a trailing `/`). */
  multi: boolean
  /** The number of segments of the pattern (a trailing `/` counting as one). */
  segments: number
}

/** A route found for a request, with its path values, or the path to redirect it to. */
export type RouteMatch =
  | { route: ScriptRoute; params: Record<string, string>; redirect?: undefined }
  | { redirect: string; route?: undefined; params?: undefined }

/** A pattern turned into find-my-way's syntax. */
interface Compiled {
  path: string
  rest: string | null
  multi: boolean
  segments: number
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Turns a PocketBase pattern into find-my-way's; throws with the reason when it is invalid. */
export function compilePattern(pattern: string): Compiled {
  if (typeof pattern !== 'string' || !pattern.startsWith('/'))
    throw new Error(`route pattern "${String(pattern)}" must start with "/"`)
  const segments = pattern.slice(1).split('/')
  const out: string[] = []
  let rest: string | null = null
  let multi = false
  for (const [i, seg] of segments.entries()) {
    const last = i === segments.length - 1
    if (seg === '') {
      // "/a//b" has an empty segment; a trailing "/" (the last segment empty) is a prefix route.
      if (!last) throw new Error(`route pattern "${pattern}" has an empty segment`)
      out.push('*')
      multi = true
      break
    }
    const wild = /^\{(.*)\}$/.exec(seg)
    if (!wild) {
      if (/[{}]/.test(seg) || seg.includes(STAR))
        throw new Error(
          `route pattern "${pattern}": "${seg}" must be plain text or a whole {name} segment`,
        )
      out.push(seg.replaceAll(':', '::').replaceAll('*', STAR))
      continue
    }
    const inner = wild[1] ?? ''
    if (inner === '$') {
      if (!last) throw new Error(`route pattern "${pattern}": {$} must end the pattern`)
      out.push('')
      break
    }
    if (inner.endsWith('...')) {
      const name = inner.slice(0, -3)
      if (!last) throw new Error(`route pattern "${pattern}": {${inner}} must end the pattern`)
      if (!NAME.test(name)) throw new Error(`route pattern "${pattern}": bad name "${name}"`)
      rest = name
      multi = true
      out.push('*')
      break
    }
    if (!NAME.test(inner)) throw new Error(`route pattern "${pattern}": bad name "${inner}"`)
    out.push(`:${inner}`)
  }
  return { path: `/${out.join('/')}`, rest, multi, segments: segments.length }
}

/** A request path as the table keeps it: a literal `*` (or `%2A`) as `STAR`. */
function lookupPath(path: string): string {
  return path.replace(/%2A/gi, STAR).replaceAll('*', STAR)
}

/** The script routes of the running scripts. */
export class ScriptRouter {
  private readonly router = Router({ ignoreTrailingSlash: false, caseSensitive: true })
  private readonly routes: ScriptRoute[] = []

  /**
   * Adds a route; throws on an unknown method, an invalid pattern, or a route with the same
   * method and path shape added before (naming the file that added it).
   */
  add(route: Omit<ScriptRoute, 'rest' | 'multi' | 'segments'>): void {
    const method = String(route.method).toUpperCase()
    if (!(ROUTE_METHODS as readonly string[]).includes(method))
      throw new Error(
        `routerAdd: unknown method "${String(route.method)}" (use one of ${ROUTE_METHODS.join(', ')})`,
      )
    if (typeof route.handler !== 'function')
      throw new Error(`routerAdd ${method} ${route.pattern}: the handler must be a function`)
    for (const mw of route.middlewares)
      if (typeof mw !== 'function')
        throw new Error(`routerAdd ${method} ${route.pattern}: a middleware must be a function`)
    const { path, rest, multi, segments } = compilePattern(route.pattern)
    const entry: ScriptRoute = { ...route, method, rest, multi, segments }
    const shape = path.replace(/:\w+/g, ':')
    const other = this.routes.find(
      (r) => r.method === method && compilePattern(r.pattern).path.replace(/:\w+/g, ':') === shape,
    )
    if (other)
      throw new Error(
        `routerAdd: ${method} ${route.pattern} is already added (as ${other.pattern} by ${basename(other.file)})`,
      )
    this.router.on(method as Router.HTTPMethod, path, () => undefined, entry)
    this.routes.push(entry)
  }

  /** Removes every route added by `file`. */
  removeFile(file: string): void {
    const gone = this.routes.filter((r) => r.file === file)
    if (gone.length === 0) return
    for (const r of gone)
      this.router.off(r.method as Router.HTTPMethod, compilePattern(r.pattern).path)
    const kept = this.routes.filter((r) => r.file !== file)
    this.routes.length = 0
    this.routes.push(...kept)
  }

  /**
   * The route for a request path (no query string), HEAD falling back to GET; or, as `ServeMux`,
   * a redirect to the path with a trailing `/` when only that form matches exactly.
   */
  find(method: string, path: string): RouteMatch | null {
    if (path.includes(STAR) || /%01/.test(path)) return null
    const found = this.match(method, path)
    if (path.endsWith('/') || (found && exact(found.route, path))) return found
    const slashed = this.match(method, `${path}/`)
    if (slashed && exact(slashed.route, `${path}/`)) return { redirect: `${path}/` }
    return found
  }

  private match(
    method: string,
    path: string,
  ): { route: ScriptRoute; params: Record<string, string> } | null {
    const m = method.toUpperCase()
    const at = lookupPath(path)
    const found =
      this.router.find(m as Router.HTTPMethod, at) ??
      (m === 'HEAD' ? this.router.find('GET', at) : null)
    if (!found) return null
    const route = found.store as ScriptRoute
    const params: Record<string, string> = {}
    for (const [k, v] of Object.entries(found.params)) {
      if (v === undefined) continue
      const value = v.replaceAll(STAR, '*')
      if (k === '*') {
        if (route.rest) params[route.rest] = value
      } else if (value === '')
        return null // as in PocketBase, {name} needs a non-empty segment
      else params[k] = value
    }
    return { route, params }
  }

  /** The routes in the order they were added. */
  list(): readonly ScriptRoute[] {
    return this.routes
  }
}

/**
 * A middleware's place in a chain (PocketBase's `hook.Handler` priority and id): lower priority
 * runs first (default 0, then binding order); a middleware with an id replaces an earlier one
 * with the same id, where that one was.
 */
export interface MiddlewarePlace {
  priority?: number
  id?: string
}

const places = new WeakMap<RouteHandler, MiddlewarePlace>()

/** `fn` with its place in the chain (see {@link orderMiddlewares}). */
export function placeMiddleware(fn: RouteHandler, place: MiddlewarePlace): RouteHandler {
  places.set(fn, place)
  return fn
}

/**
 * The chain of a request as PocketBase's router builds it: the global middlewares then the
 * route's, folded as `hook.Bind` does (a same id replaces in place), then sorted by priority,
 * equal priorities kept in binding order.
 */
export function orderMiddlewares<T extends { fn: RouteHandler }>(list: readonly T[]): T[] {
  if (list.every((m) => !places.has(m.fn))) return [...list]
  const out: T[] = []
  for (const m of list) {
    const id = places.get(m.fn)?.id
    const at = id ? out.findIndex((o) => places.get(o.fn)?.id === id) : -1
    if (at === -1) out.push(m)
    else out[at] = m
  }
  const priority = (m: T) => places.get(m.fn)?.priority ?? 0
  return out.sort((a, b) => priority(a) - priority(b))
}

/** `ServeMux`'s exact match: a rest-of-path route matches exactly only an empty rest. */
function exact(route: ScriptRoute, path: string): boolean {
  if (!route.multi) return true
  if (!path.endsWith('/')) return false
  return route.segments === path.split('/').length - 1
}
