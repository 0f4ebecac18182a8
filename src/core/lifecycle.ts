/**
 * The lifecycle hook events of an app (PocketBase's `OnBootstrap`, `OnServe`, `OnTerminate`).
 * Every feature and background task starts and stops through these hooks, so an app can stop
 * and start again in-process (a restore, a test) with nothing left running.
 */
import type { HookEvent } from '../tools/hook.js'
import type { App } from './app.js'

/**
 * The event of `onBootstrap`: the app opens its databases, migrates them and loads its settings
 * and collections in the built-in action. Code after `await e.next()` sees a ready app.
 */
export interface BootstrapEvent extends HookEvent {
  app: App
}

/**
 * The event of `onServe`: the app starts serving (the HTTP instance is built and every feature
 * registered). The built-in action starts the scheduler; features start their background tasks
 * here (bus listeners, timers) and stop them in `onTerminate`.
 */
export interface ServeEvent extends HookEvent {
  app: App
}

/**
 * The event of `onTerminate`: the app stops. Handlers stop their tasks *before* `await e.next()`;
 * the built-in action (last) stops the scheduler and closes storage and the databases.
 */
export interface TerminateEvent extends HookEvent {
  app: App
  /** True when the app is bootstrapped again afterwards (a restore). */
  isRestart: boolean
}
