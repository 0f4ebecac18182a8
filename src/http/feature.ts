/**
 * The plugin shape every feature takes. `features/index.ts` lists the built-ins in order and the
 * composition root (`server.ts`) registers the enabled ones on a fresh app before it bootstraps,
 * as PocketBase registers its plugins before `Bootstrap()`.
 */
import type { FastifyInstance } from 'fastify'
import type { App } from '../core/app.js'
import type { SystemCollectionSpec } from '../core/collections/system.js'
import type { MessageTable } from '../core/errors/catalogue.js'

/** What a feature registers on: the app (not bootstrapped yet) and the HTTP instance. */
export interface FeatureContext {
  /**
   * The app, built but not bootstrapped: bind hooks, add jobs to `app.cron`, offer services on
   * `app.services`, declare settings groups with `app.registerSettingsGroup`. Work that needs the
   * open app (settings, collections, the databases) goes in an `onBootstrap` or `onServe`
   * handler, or runs per request.
   */
  app: App
  /** The Fastify instance every route and request hook goes on. */
  http: FastifyInstance
}

/**
 * A feature: a named plugin of the composition root. A feature reaches another only through the
 * app (its services, hooks and events), never by importing the other's files.
 */
export interface Feature {
  /** A unique kebab-case name, the one `createServer(config, { disable })` takes. */
  readonly name: string
  /**
   * The feature's own top-level error messages (`features/<name>/messages.ts`, typed into the
   * catalogue by declaration merging), for the catalogue's tests and docs.
   */
  readonly messages?: MessageTable
  /**
   * The feature's system collections (`features/<name>/collections.ts`): the composition root
   * hands them to the app it makes (`newApp(config, { systemCollections })`), which creates them
   * at bootstrap when missing and keeps them up to date; with the feature off they are not made.
   */
  readonly systemCollections?: readonly SystemCollectionSpec[]
  /** Adds the feature's routes, hooks, jobs, services and settings groups. */
  register(ctx: FeatureContext): void | Promise<void>
  /**
   * Releases what `register` acquired outside the app's lifecycle, once, when the server
   * closes: after HTTP stopped and before the app terminates. Background tasks of the app
   * belong in `onServe`/`onTerminate` handlers instead, which also run on an in-process restart.
   */
  close?(): void | Promise<void>
}

/** Which features a server runs: a list (the built-ins by default) minus the switched-off ones. */
export interface FeatureSelection {
  /** The features to register, in order; the built-ins by default. */
  features?: readonly Feature[]
  /** The names of features to switch off (`['metrics']`): they are not registered at all. */
  disable?: readonly string[]
}

/**
 * The features left after switching off the named ones, in their order. Throws on a name that
 * is not in the list (a typo would otherwise leave the feature on) or that appears twice.
 */
export function enabledFeatures(
  features: readonly Feature[],
  disable: readonly string[] = [],
): Feature[] {
  const names = new Set<string>()
  for (const { name } of features) {
    if (names.has(name)) throw new Error(`two features are named "${name}"`)
    names.add(name)
  }
  const unknown = disable.filter((name) => !names.has(name))
  if (unknown.length > 0) throw new Error(`no feature to disable is named ${unknown.join(', ')}`)
  return features.filter((f) => !disable.includes(f.name))
}

/**
 * Registers each feature in order on the same app and HTTP instance. Returns the function that
 * closes the registered features (once, however often it is called). When one fails to register,
 * those registered before it are closed and the error is thrown.
 */
export async function registerFeatures(
  features: readonly Feature[],
  ctx: FeatureContext,
): Promise<() => Promise<void>> {
  const registered: Feature[] = []
  try {
    for (const feature of features) {
      await feature.register(ctx)
      registered.push(feature)
    }
  } catch (err) {
    await closeFeatures(registered).catch(() => undefined)
    throw err
  }
  let closing: Promise<void> | null = null
  return () => (closing ??= closeFeatures(registered))
}

/**
 * Closes the features in reverse order; every `close` runs even when one throws, and the first
 * error is thrown at the end.
 */
export async function closeFeatures(features: readonly Feature[]): Promise<void> {
  const failures: unknown[] = []
  for (const feature of [...features].reverse()) {
    try {
      await feature.close?.()
    } catch (err) {
      failures.push(err)
    }
  }
  if (failures.length > 0)
    throw failures[0] instanceof Error ? failures[0] : new Error(String(failures[0]))
}
