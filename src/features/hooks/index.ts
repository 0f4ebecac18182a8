import { resolve } from 'node:path'
import type { Feature } from '../../http/feature.js'
import { registerFunctionsRoute } from './routes/functions.js'
import { registerMiddlewares } from './routes/middlewares.js'
import { registerScriptRoutes } from './routes/scripts.js'
import { beginPbBootstrap, runPbBootstrap } from './pb/lifecycle.js'
import { HookScripts } from './service.js'
import { watchDir } from './watch.js'

export { HookScripts, type FunctionsListing, type LoadFailure } from './service.js'
export type { ScriptApp } from './script-app.js'

declare module '../../core/services.js' {
  interface AppServices {
    /** The hook scripts of the hooks dir (set by `features/hooks`). */
    hookScripts: HookScripts
  }
}

/**
 * Hook scripts (docs/hook-scripts.md): every `*.js`, `*.mjs` and `*.ts` module of
 * `config.hooksDir` (and every `*.pb.js` file, through `pb/`) is loaded in name order once the
 * app has bootstrapped, before the server answers; what a script binds (routes, global
 * middlewares, hooks, jobs) is unbound when the app terminates and on a `--dev` reload, which a
 * change in the hooks dir triggers. A file that fails is logged with its position and listed by
 * `GET /api/functions`; the others load. Without `hooksDir` there are no scripts.
 */
export function hooksFeature(): Feature {
  return {
    name: 'hooks',
    register: ({ app, http }) => {
      const dir = app.config.hooksDir ? resolve(app.config.hooksDir) : ''
      const scripts = new HookScripts(app, dir)
      app.services.set('hookScripts', scripts)
      let stopWatching: (() => void) | null = null

      app.hooks.onBootstrap.bind(async (e) => {
        await e.next()
        beginPbBootstrap(app)
        await scripts.reload()
        // The `onBootstrap` handlers of the `*.pb.js` files just loaded (pb/lifecycle.ts).
        await runPbBootstrap(app)
      })
      app.hooks.onServe.bind(async (e) => {
        await e.next()
        if (app.config.dev && dir !== '' && !stopWatching)
          stopWatching = watchDir(dir, () => void scripts.reload(), app.logger)
      })
      app.hooks.onTerminate.bind(async (e) => {
        stopWatching?.()
        stopWatching = null
        await scripts.settled() // a reload going on finishes before everything is unbound
        await e.next()
        scripts.unloadAll()
      })

      registerMiddlewares(app, http, scripts)
      registerFunctionsRoute(http, scripts)
      registerScriptRoutes(app, http, scripts)
    },
  }
}
