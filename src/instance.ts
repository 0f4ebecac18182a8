import type { FastifyInstance } from 'fastify'
import type { App, AppConfig } from './core/app.js'
import { newApp } from './core/create-app.js'
import * as features from './features/index.js'
import { closeHttp } from './http/close.js'
import { registerFieldsPicker } from './http/fields.js'
import { createHttp, type HttpOptions } from './http/server.js'
import type { ServerRestart } from './restart.js'

/** What builds an instance: the HTTP instance's options and which features run (`{disable}`). */
export type InstanceOptions = HttpOptions & features.FeatureSelection

/** One start of the server: an app and its HTTP instance. */
export interface Instance {
  app: App
  http: FastifyInstance
  /** The one-time setup token, valid while no superuser exists ('' without `setup`). */
  setupToken: string
  close(): Promise<void>
}

/**
 * Builds, registers, bootstraps and serves one app and its HTTP instance (not listening yet):
 * the enabled features register on the app before it bootstraps (so their `onBootstrap`
 * handlers run); `restart` is offered to them as the `restart` service.
 */
export async function startInstance(
  config: AppConfig,
  opts: InstanceOptions,
  restart: ServerRestart,
): Promise<Instance> {
  const list = features.selectFeatures(opts)
  const app = newApp(config, {
    systemCollections: list.flatMap((f) => f.systemCollections ?? []),
  })
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
