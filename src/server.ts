import type { FastifyInstance } from 'fastify'
import type { App, AppConfig } from './core/app.js'
import { selectFeatures } from './features/index.js'
import { startInstance, type InstanceOptions } from './instance.js'
import { Restartable, type ListenAddress, type ServerRestart } from './restart.js'

export {
  LISTEN_BACKLOG,
  type ListenAddress,
  type RestartPlan,
  type ServerRestart,
} from './restart.js'

/** Options of `createServer`: the HTTP instance's, and which features run (`{disable}`). */
export type ServerOptions = InstanceOptions & {
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

/**
 * A composed server: the app, its HTTP instance, and the names of its features, in order. `app`
 * and `http` are the current ones: a restart (`restart.ts`) replaces both.
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

/**
 * The composition root: builds the app and the HTTP instance with the enabled features
 * (`instance.ts`), then starts serving; a restart (`server.restart`, also
 * `app.services.get('restart')`) builds both again the same way.
 */
export async function createServer(config: AppConfig, opts: ServerOptions = {}): Promise<Server> {
  const running = new Restartable((restart) => startInstance(config, opts, restart), {
    restarted: () => opts.onRestarted?.(server),
    fatal: (err) => opts.onFatal?.(err),
  })
  await running.begin()
  const server: Server = {
    get app() {
      return running.instance.app
    },
    get http() {
      return running.instance.http
    },
    get setupToken() {
      return running.instance.setupToken
    },
    features: selectFeatures(opts).map((f) => f.name),
    listen: (at) => running.listen(at),
    restart: (prepare) => running.restart(prepare),
    close: () => running.close(),
  }
  return server
}
