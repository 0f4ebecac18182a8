import type { FastifyInstance } from 'fastify'
import type { App, AppConfig } from './core/app.js'
import { newApp } from './core/create-app.js'
import * as features from './features/index.js'
import { closeHttp } from './http/close.js'
import { registerFieldsPicker } from './http/fields.js'
import { createHttp, type HttpOptions } from './http/server.js'

/** Options of `createServer`: the HTTP instance's, and which features run (`{disable}`). */
export type ServerOptions = HttpOptions &
  features.FeatureSelection & {
    /**
     * Called after every in-process restart, once the new app serves and listens again
     * (`serve --automigrate` applies its schema file again here, as a fresh start would).
     */
    onRestarted?: (server: Server) => void | Promise<void>
    /**
     * Called when a restart left no app running: the new one failed to start, and so did the
     * old one put back. The process has nothing to serve (`serve` exits non-zero).
     */
    onFatal?: (err: unknown) => void
  }

/** Where a server listens: `listen` remembers it so a restart listens there again. */
export interface ListenAddress {
  host: string
  /** 0 picks a free port; a restart reuses the port that was picked. */
  port: number
}

/**
 * What the work done between stop and start (`restart(prepare)`) leaves to finish: `undo` puts
 * things back when the new app fails to start (the old app then starts again), `done` runs once
 * the new app serves (removing what `undo` would have needed).
 */
export interface RestartPlan {
  undo?(): Promise<void>
  done?(): Promise<void>
}

/** An in-process restart of the server the app belongs to, offered as the `restart` service. */
export interface ServerRestart {
  /**
   * Stops the app through its lifecycle (HTTP closed, every connection dropped, SSE clients
   * included), runs `prepare`, then starts a fresh app and HTTP instance with the same config
   * and options, listening on the same address: the process stays the same. When the new app
   * fails to start, `prepare`'s `undo` runs and the old state starts again; the call then
   * rejects with the start failure. Call it after the current request was answered: the stop
   * waits for requests in flight.
   */
  restart(prepare?: () => Promise<RestartPlan | void>): Promise<void>
}

declare module './core/services.js' {
  interface AppServices {
    /** Restarts the server in-process (set by the composition root, `server.ts`). */
    restart: ServerRestart
  }
}

/**
 * A composed server: the app, its HTTP instance, and the names of its features, in order. `app`
 * and `http` are the current ones: a restart replaces both.
 */
export interface Server extends ServerRestart {
  readonly app: App
  readonly http: FastifyInstance
  /** The one-time setup token, valid while no superuser exists ('' without `setup`). */
  readonly setupToken: string
  readonly features: readonly string[]
  /** Listens on `address` and remembers it for restarts; resolves to the URL (`http://…`). */
  listen(address: ListenAddress): Promise<string>
  /** Stops HTTP (with a grace period), closes the features, then terminates the app. */
  close(): Promise<void>
}

/** One start of the server: an app and its HTTP instance. */
interface Instance {
  app: App
  http: FastifyInstance
  setupToken: string
  close(): Promise<void>
}

/**
 * The queue of connections the kernel completes before the server accepts them (capped by
 * `net.core.somaxconn`): Node's default of 511 overflowed when a thousand clients connected at
 * once (PocketBase's benchmark), and each overflow cost the client a SYN retransmit (1 s and up).
 * Go servers such as PocketBase use the kernel's cap.
 */
export const LISTEN_BACKLOG = 4096

/**
 * The composition root: builds the app and the HTTP instance, registers the enabled features on
 * the app before it bootstraps (so their `onBootstrap` handlers run), then starts serving. A
 * restart (`server.restart`, also `app.services.get('restart')`) builds both again the same way.
 */
export async function createServer(config: AppConfig, opts: ServerOptions = {}): Promise<Server> {
  const names = features.selectFeatures(opts).map((f) => f.name)
  let address: ListenAddress | null = null
  let restarting: Promise<void> | null = null
  let closed = false
  const restart: ServerRestart = { restart: (prepare) => server.restart(prepare) }
  let current = await startInstance(config, opts, restart)

  const listen = async (instance: Instance, at: ListenAddress): Promise<string> => {
    const url = await instance.http.listen({
      host: at.host,
      port: at.port,
      backlog: LISTEN_BACKLOG,
    })
    const bound = instance.http.server.address()
    address = { host: at.host, port: typeof bound === 'object' && bound ? bound.port : at.port }
    return url
  }

  /** Starts a fresh instance and listens where the old one did; closes it again on failure. */
  const startAgain = async (): Promise<Instance> => {
    const instance = await startInstance(config, opts, restart)
    try {
      if (address) await listen(instance, address)
    } catch (err) {
      await instance.close().catch(() => undefined)
      throw err
    }
    return instance
  }

  const doRestart = async (prepare?: () => Promise<RestartPlan | void>): Promise<void> => {
    // A caller that listened through `http.listen` directly: listen where it did.
    const bound = current.http.server.listening ? current.http.server.address() : null
    if (!address && bound && typeof bound === 'object')
      address = { host: bound.address, port: bound.port }
    await current.close()
    let plan: RestartPlan = {}
    try {
      plan = (await prepare?.()) ?? {}
    } catch (err) {
      // Nothing was changed for good (prepare undoes its own partial work): start as before.
      current = await startAgain()
      throw err
    }
    try {
      current = await startAgain()
    } catch (err) {
      if (!plan.undo) throw err
      await plan.undo()
      current = await startAgain()
      throw err
    }
    if (opts.onRestarted) await opts.onRestarted(server)
    await plan.done?.()
  }

  const server: Server = {
    get app() {
      return current.app
    },
    get http() {
      return current.http
    },
    get setupToken() {
      return current.setupToken
    },
    features: names,
    listen: (at) => listen(current, at),
    restart(prepare) {
      if (closed) return Promise.reject(new Error('the server is closed'))
      if (restarting) return Promise.reject(new Error('a restart is already going'))
      // NB: between the old HTTP server closing and the new one listening, nothing may hold
      // the event loop (an unref'd worker's reply is awaited): keep the process alive.
      const keepAlive = setInterval(() => undefined, 60_000)
      const run = doRestart(prepare).finally(() => clearInterval(keepAlive))
      restarting = run.then(
        () => undefined,
        () => undefined,
      )
      return run
        .catch((err: unknown) => {
          // NB: an app that failed to start again is closed; nothing serves any more.
          if (!current.app.isBootstrapped) opts.onFatal?.(err)
          throw err
        })
        .finally(() => {
          restarting = null
        })
    },
    async close() {
      closed = true
      if (restarting) await restarting
      await current.close()
    },
  }
  return server
}

/** Builds, registers, bootstraps and serves one app and its HTTP instance (not listening yet). */
async function startInstance(
  config: AppConfig,
  opts: ServerOptions,
  restart: ServerRestart,
): Promise<Instance> {
  const list = features.selectFeatures(opts)
  const app = newApp(config)
  app.services.set('restart', restart)
  const http = await createHttp(app, opts)
  let closeFeatures = (): Promise<void> => Promise.resolve()
  let closing: Promise<void> | null = null
  const close = () => {
    closing ??= (async () => {
      await closeHttp(http)
      await closeFeatures().finally(() => app.close())
    })()
    return closing
  }
  try {
    registerFieldsPicker(http)
    closeFeatures = await features.registerFeatures(list, { app, http })
    await app.bootstrap()
    await http.ready()
    await app.serve() // the scheduler and the features' background tasks start here
  } catch (err) {
    await close().catch(() => undefined)
    throw err
  }
  const setupToken = app.services.find('setup')?.token ?? ''
  return { app, http, setupToken, close }
}
