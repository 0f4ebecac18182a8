/**
 * The hook families a feature owns (issue 36: core names no feature). A feature declares its
 * families in its own folder by declaration merging into {@link FeatureHooks}:
 *
 *     declare module '../../core/hooks-features.js' {
 *       interface FeatureHooks { onBackupCreate: Hook<BackupEvent> }
 *     }
 *
 * and creates them when it registers (`addFeatureHooks`); they then sit on `app.hooks` beside
 * core's, so hook scripts bind them like any other family. A family is absent while its feature
 * is off: {@link featureHook} answers undefined and the feature's triggers never run.
 *
 * NB: not merged into `AppHooks` itself: a member there must be created by `createHooks()` in
 * core (which would name the feature), or be optional, which makes every `app.hooks[name]`
 * lookup by `keyof AppHooks` possibly undefined for the code that binds core's families.
 */
import type { Hook } from '../tools/hook.js'
import type { App } from './app.js'

/** The families features declare (see above); empty in core. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface FeatureHooks {}

/** The name of a feature's family. */
export type FeatureHookName = keyof FeatureHooks

/** The event of a feature's family. */
export type FeatureHookEvent<K extends FeatureHookName> =
  FeatureHooks[K] extends Hook<infer E> ? E : never

/**
 * Adds a feature's families to `app.hooks` (a family already there, as after an in-process
 * restart that keeps the app's hooks, is kept with its handlers).
 */
export function addFeatureHooks(app: App, families: Partial<FeatureHooks>): void {
  const hooks = app.hooks as unknown as Record<string, unknown>
  for (const [name, hook] of Object.entries(families)) hooks[name] ??= hook
}

/** A feature's family on `app.hooks`, or undefined while its feature is off. */
export function featureHook<K extends FeatureHookName>(
  app: App,
  name: K,
): FeatureHooks[K] | undefined {
  return (app.hooks as unknown as Partial<FeatureHooks>)[name]
}
