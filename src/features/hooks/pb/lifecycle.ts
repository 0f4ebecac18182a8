/**
 * `onBootstrap` of `*.pb.js` files. svcbase loads hook files once the app has bootstrapped (the
 * hooks feature's `onBootstrap` handler, after `e.next()`), so their `onBootstrap` handlers
 * cannot join the app's own chain: a file's handlers go into one chain of the bootstrap under
 * way ({@link beginPbBootstrap}), run in file and binding order once every file has loaded
 * ({@link runPbBootstrap}), still inside the app's bootstrap: a handler that throws fails the
 * bootstrap, as PocketBase's. `e.next()` goes on to the next handler; the app is bootstrapped
 * before and after it (PocketBase's opens the databases in it). A reload of the files outside a
 * bootstrap (`--dev`) binds no `onBootstrap` handler; an in-process restart (a restore)
 * bootstraps again, so the handlers of the files loaded then run once more, as PocketBase's do
 * when it restarts.
 */
import type { App } from '../../../core/app.js'
import type { BootstrapEvent } from '../../../core/lifecycle.js'
import { Hook } from '../../../tools/hook.js'

/** The chain of the bootstrap under way, by app. */
const pending = new WeakMap<App, Hook<BootstrapEvent>>()

/** Starts collecting the `onBootstrap` handlers of the files about to load. */
export function beginPbBootstrap(app: App): void {
  pending.set(app, new Hook())
}

/**
 * Binds `run` to the bootstrap under way; returns its id, or null when no bootstrap is (a
 * `--dev` reload: the app is bootstrapped already).
 */
export function bindPbBootstrap(
  app: App,
  run: (e: BootstrapEvent) => Promise<void>,
): string | null {
  return pending.get(app)?.bind(run) ?? null
}

/** Removes the handlers of a file that failed to load. */
export function unbindPbBootstrap(app: App, ids: readonly string[]): void {
  if (ids.length > 0) pending.get(app)?.unbind(...ids)
}

/** Runs the collected handlers once, in order (throws what a handler throws). */
export async function runPbBootstrap(app: App): Promise<void> {
  const chain = pending.get(app)
  pending.delete(app)
  if (chain) await chain.trigger({ app }, () => undefined)
}
