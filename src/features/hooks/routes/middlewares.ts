import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../../core/app.js'
import type { ApiError } from '../../../core/errors.js'
import { runOnion } from '../../../tools/hook.js'
import { routeEvent, sendRouteAnswer } from '../route-event.js'
import { orderMiddlewares } from '../router.js'
import type { HookScripts } from '../service.js'
import { owned, scriptFailure } from './scripts.js'

/** A promise and its resolver. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

/** The logged text of a failure: its cause's message, or its own. */
function describeFailure(err: ApiError): string {
  return err.cause instanceof Error ? err.cause.message : err.message
}

/**
 * The scripts' global middlewares (`routerUse`) around the built-in routes: a `preHandler`
 * (after auth, rate limits and the body parsers) runs the chain; when it reaches the end
 * (`await e.next()` in the last middleware), the request goes on to the route, and that `next()`
 * resolves once the route's answer has been sent, so the code after it runs after the answer.
 * A middleware that answers (or throws) without calling `next()` answers instead of the route.
 * The event's body is the parsed JSON or urlencoded body (a multipart body is not read here),
 * and `e.response` stays null after `next()` (the route answered itself). Script routes run the
 * same middlewares themselves, with the route's event (`routes/scripts.ts`).
 */
export function registerMiddlewares(app: App, http: FastifyInstance, scripts: HookScripts): void {
  /** Runs the chain; resolves true when a middleware answered instead of the route. */
  const around = async (req: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    const body =
      typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
        ? (req.body as Record<string, unknown>)
        : {}
    const params = (req.params ?? {}) as Record<string, string>
    const e = routeEvent(app, req, params, body)
    const reached = deferred()
    const answered = deferred()
    reply.raw.once('close', answered.resolve)
    const chain = runOnion(
      e,
      orderMiddlewares(scripts.middlewares).map((m) => owned(m.fn, m.file)),
      () => {
        reached.resolve()
        return answered.promise
      },
    )
    const settled = chain.then(
      () => 'done' as const,
      (err: unknown) => ({ err }),
    )
    const outcome = await Promise.race([reached.promise.then(() => 'route' as const), settled])
    if (outcome === 'route') {
      // The route answers; a middleware failing after its `next()` can only be logged.
      void settled.then((end) => {
        if (end === 'done') return
        app.logger.error('hook script middleware failed after the answer', {
          url: req.url,
          error: describeFailure(scriptFailure(scripts, end.err)),
        })
      })
      return false
    }
    if (outcome !== 'done') throw scriptFailure(scripts, outcome.err)
    sendRouteAnswer(reply, e)
    return true
  }

  // NB: a callback hook: with no middleware bound (the common case) it costs no promise.
  http.addHook('preHandler', (req, reply, done) => {
    if (scripts.middlewares.length === 0 || req.routeOptions.config.svcScriptRoutes) return done()
    around(req, reply).then((answeredHere) => {
      // A hook that answered does not call `done`: the route does not run.
      if (!answeredHere) done()
    }, done)
  })
}
