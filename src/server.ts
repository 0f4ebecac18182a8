import type { FastifyInstance } from 'fastify'
import type { App, AppConfig } from './core/app.js'
import { newApp } from './core/create-app.js'
import * as features from './features/index.js'
import { closeHttp } from './http/close.js'
import { registerFieldsPicker } from './http/fields.js'
import { createHttp, type HttpOptions } from './http/server.js'

/** Options of `createServer`: the HTTP instance's, and which features run (`{disable}`). */
export type ServerOptions = HttpOptions & features.FeatureSelection

/** A composed server: the app, its HTTP instance, and the names of its features, in order. */
export interface Server {
  app: App
  http: FastifyInstance
  /** The one-time setup token, valid while no superuser exists ('' without `setup`). */
  setupToken: string
  features: readonly string[]
  /** Stops HTTP (with a grace period), closes the features, then terminates the app. */
  close(): Promise<void>
}

/**
 * The composition root: builds the app and the HTTP instance, registers the enabled features on
 * the app before it bootstraps (so their `onBootstrap` handlers run), then starts serving.
 */
export async function createServer(config: AppConfig, opts: ServerOptions = {}): Promise<Server> {
  const list = features.selectFeatures(opts)
  const app = newApp(config)
  const http = await createHttp(app, opts)
  let closeFeatures = (): Promise<void> => Promise.resolve()
  const close = async () => {
    await closeHttp(http)
    await closeFeatures().finally(() => app.close())
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
  return { app, http, setupToken, features: list.map((f) => f.name), close }
}
