import type { Instance } from './instance.js'

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
 * The queue of connections the kernel completes before the server accepts them (capped by
 * `net.core.somaxconn`): Node's default of 511 overflowed when a thousand clients connected at
 * once (PocketBase's benchmark), and each overflow cost the client a SYN retransmit (1 s and up).
 * Go servers such as PocketBase use the kernel's cap.
 */
export const LISTEN_BACKLOG = 4096

/** What a restart calls back: after each one, and when it left nothing running. */
export interface RestartHooks {
  /** Once the new app serves and listens again. */
  restarted?(): void | Promise<void>
  /** The new app failed to start, and so did the old one put back: nothing serves. */
  fatal?(err: unknown): void
}

/**
 * The current instance of a server and its in-process restarts: `start` builds a fresh one
 * (given this as its `restart` service); a restart closes the current one, runs `prepare`, and
 * starts and listens again where it listened, putting the old state back when that fails.
 */
export class Restartable implements ServerRestart {
  private current!: Instance
  private address: ListenAddress | null = null
  private restarting: Promise<void> | null = null
  private closed = false

  constructor(
    private readonly start: (restart: ServerRestart) => Promise<Instance>,
    private readonly hooks: RestartHooks = {},
  ) {}

  /** Starts the first instance. */
  async begin(): Promise<this> {
    this.current = await this.start(this)
    return this
  }

  get instance(): Instance {
    return this.current
  }

  /** Listens on `at` and remembers it for restarts; resolves to the URL (`http://…`). */
  async listen(at: ListenAddress, instance: Instance = this.current): Promise<string> {
    const url = await instance.http.listen({
      host: at.host,
      port: at.port,
      backlog: LISTEN_BACKLOG,
    })
    const bound = instance.http.server.address()
    this.address = {
      host: at.host,
      port: typeof bound === 'object' && bound ? bound.port : at.port,
    }
    return url
  }

  restart(prepare?: () => Promise<RestartPlan | void>): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the server is closed'))
    if (this.restarting) return Promise.reject(new Error('a restart is already going'))
    // NB: between the old HTTP server closing and the new one listening, nothing may hold the
    // event loop (an unref'd worker's reply is awaited): keep the process alive.
    const keepAlive = setInterval(() => undefined, 60_000)
    const run = this.run(prepare).finally(() => clearInterval(keepAlive))
    this.restarting = run.then(
      () => undefined,
      () => undefined,
    )
    return run
      .catch((err: unknown) => {
        // NB: an app that failed to start again is closed; nothing serves any more.
        if (!this.current.app.isBootstrapped) this.hooks.fatal?.(err)
        throw err
      })
      .finally(() => {
        this.restarting = null
      })
  }

  /** Waits for a restart going on, then closes the current instance. */
  async close(): Promise<void> {
    this.closed = true
    if (this.restarting) await this.restarting
    await this.current.close()
  }

  private async run(prepare?: () => Promise<RestartPlan | void>): Promise<void> {
    // A caller that listened through `http.listen` directly: listen where it did.
    const server = this.current.http.server
    const bound = server.listening ? server.address() : null
    if (!this.address && bound && typeof bound === 'object')
      this.address = { host: bound.address, port: bound.port }
    await this.current.close()
    let plan: RestartPlan = {}
    try {
      plan = (await prepare?.()) ?? {}
    } catch (err) {
      // Nothing was changed for good (prepare undoes its own partial work): start as before.
      this.current = await this.startAgain()
      throw err
    }
    try {
      this.current = await this.startAgain()
    } catch (err) {
      if (!plan.undo) throw err
      await plan.undo()
      this.current = await this.startAgain()
      throw err
    }
    await this.hooks.restarted?.()
    await plan.done?.()
  }

  /** Starts a fresh instance and listens where the old one did; closes it again on failure. */
  private async startAgain(): Promise<Instance> {
    const instance = await this.start(this)
    try {
      if (this.address) await this.listen(this.address, instance)
    } catch (err) {
      await instance.close().catch(() => undefined)
      throw err
    }
    return instance
  }
}
