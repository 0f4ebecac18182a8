import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../../core/app.js'
import { ApiError, internal } from '../../../core/errors.js'
import { readBody } from '../../../http/body.js'
import { notFoundHandler } from '../../../http/errors.js'
import { runOnion } from '../../../tools/hook.js'
import { gzipOnSend } from '../gzip.js'
import { routeEvent, sendRouteAnswer } from '../route-event.js'
import { orderMiddlewares } from '../router.js'
import type { RouteEvent, RouteHandler } from '../script-api.js'
import type { HookScripts } from '../service.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the catch-all routes that answer with the script route table. */
    svcScriptRoutes?: boolean
  }
}

/** The methods of the catch-all (HEAD comes with GET; OPTIONS is CORS's). */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/** The path of a request URL, without its query (still encoded: the router decodes values). */
function pathOf(url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/** An error thrown by a script function, with the file of that function. */
export class ThrownByScript extends Error {
  constructor(
    readonly error: unknown,
    readonly file: string,
  ) {
    super(error instanceof Error ? error.message : String(error))
    this.name = 'ThrownByScript'
  }
}

/** `fn` with what it throws tagged with `file` (an `ApiError` and an inner tag pass through). */
export function owned(fn: RouteHandler, file: string): (e: RouteEvent) => Promise<void> {
  return async (e) => {
    try {
      await fn(e)
    } catch (err) {
      if (err instanceof ApiError || err instanceof ThrownByScript) throw err
      throw new ThrownByScript(err, file)
    }
  }
}

/**
 * An error of a script's route or middleware as the client gets it: an `ApiError` keeps its
 * status and message; anything else is a 500 whose logged cause names the script position.
 */
export function scriptFailure(scripts: HookScripts, err: unknown): ApiError {
  if (err instanceof ApiError) return err
  const cause = new Error(
    err instanceof ThrownByScript ? scripts.describe(err.error, err.file) : String(err),
  )
  cause.stack = cause.message
  return internal(cause)
}

/**
 * The script routes: one Fastify catch-all per method (`/*` and `/`), registered once, looks
 * each request up in the scripts' own route table, so `--dev` reloads change routes without
 * touching Fastify. Built-in routes are more specific and win; a path no script route matches
 * answers the usual 404. The catch-all is an ordinary route of the root instance, so auth, the
 * client IP, rate limits, request logs and metrics apply as to every built-in route.
 */
export function registerScriptRoutes(app: App, http: FastifyInstance, scripts: HookScripts): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    await scripts.settled()
    const match = scripts.router.find(req.method, pathOf(req.url))
    if (!match) return notFoundHandler(req, reply)
    if (match.redirect !== undefined) {
      const q = req.url.indexOf('?')
      return reply.redirect(match.redirect + (q === -1 ? '' : req.url.slice(q)), 307)
    }
    const { route, params } = match
    const body = await readBody(req)
    const e = routeEvent(app, req, params, body.values, body.files)
    const fns = orderMiddlewares([
      ...scripts.middlewares,
      ...route.middlewares.map((fn) => ({ fn, file: route.file })),
    ]).map((m) => owned(m.fn, m.file))
    try {
      await runOnion(e, fns, () => owned(route.handler, route.file)(e))
    } catch (err) {
      throw scriptFailure(scripts, err)
    }
    return sendRouteAnswer(reply, e)
  }
  for (const method of METHODS) {
    for (const url of ['/*', '/'])
      http.route({ method, url, handler, onSend: gzipOnSend, config: { svcScriptRoutes: true } })
  }
}
