/**
 * The table of script routes (`routerAdd`), kept apart from Fastify's: Fastify cannot add or
 * remove routes once it is ready, and `--dev` reloads change them while the server runs. One
 * Fastify catch-all (`routes/scripts.ts`) looks requests up here. Patterns are PocketBase's (Go
 * `ServeMux`): `{name}` for one segment, `{name...}` for the rest of the path, a trailing `/` for
 * every path under it, `{$}` for the path ending in `/` exactly; the most specific route wins.
 */
import { basename } from 'node:path'
import Router from 'find-my-way'
import type { RouteHandler } from './script-api.js'

/** The methods a script route may take (OPTIONS belongs to CORS, HEAD follows GET). */
export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const

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
}

/** A route found for a request, with its path values. */
export interface RouteMatch {
  route: ScriptRoute
  params: Record<string, string>
}

/** A pattern turned into find-my-way's syntax. */
interface Compiled {
  path: string
  rest: string | null
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Turns a PocketBase pattern into find-my-way's; throws with the reason when it is invalid. */
export function compilePattern(pattern: string): Compiled {
  if (typeof pattern !== 'string' || !pattern.startsWith('/'))
    throw new Error(`route pattern "${String(pattern)}" must start with "/"`)
  const segments = pattern.slice(1).split('/')
  const out: string[] = []
  let rest: string | null = null
  for (const [i, seg] of segments.entries()) {
    const last = i === segments.length - 1
    if (seg === '') {
      // "/a//b" has an empty segment; a trailing "/" (the last segment empty) is a prefix route.
      if (!last) throw new Error(`route pattern "${pattern}" has an empty segment`)
      out.push('*')
      break
    }
    const wild = /^\{(.*)\}$/.exec(seg)
    if (!wild) {
      if (/[{}:*]/.test(seg))
        throw new Error(
          `route pattern "${pattern}": "${seg}" must be plain text or a whole {name} segment`,
        )
      out.push(seg)
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
      out.push('*')
      break
    }
    if (!NAME.test(inner)) throw new Error(`route pattern "${pattern}": bad name "${inner}"`)
    out.push(`:${inner}`)
  }
  return { path: `/${out.join('/')}`, rest }
}

/** The script routes of the running scripts. */
export class ScriptRouter {
  private readonly router = Router({ ignoreTrailingSlash: false, caseSensitive: true })
  private readonly routes: ScriptRoute[] = []

  /**
   * Adds a route; throws on an unknown method, an invalid pattern, or a route with the same
   * method and path shape added before (naming the file that added it).
   */
  add(route: Omit<ScriptRoute, 'rest'>): void {
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
    const { path, rest } = compilePattern(route.pattern)
    const entry: ScriptRoute = { ...route, method, rest }
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

  /** The route for a request path (no query string), HEAD falling back to GET. */
  find(method: string, path: string): RouteMatch | null {
    const m = method.toUpperCase()
    const found =
      this.router.find(m as Router.HTTPMethod, path) ??
      (m === 'HEAD' ? this.router.find('GET', path) : null)
    if (!found) return null
    const route = found.store as ScriptRoute
    const params: Record<string, string> = {}
    for (const [k, v] of Object.entries(found.params)) {
      if (v === undefined) continue
      if (k === '*') {
        if (route.rest) params[route.rest] = v
      } else if (v === '')
        return null // as in PocketBase, {name} needs a non-empty segment
      else params[k] = v
    }
    return { route, params }
  }

  /** The routes in the order they were added. */
  list(): readonly ScriptRoute[] {
    return this.routes
  }
}
