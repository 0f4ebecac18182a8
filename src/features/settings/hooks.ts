/**
 * The settings feature's hook families (PocketBase's `onSettingsListRequest`,
 * `onSettingsUpdateRequest` and `onSettingsReload`), declared here and created when the feature
 * registers (`core/hooks-features.ts`):
 * - `onSettingsListRequest` around the answer of `GET /api/settings`: `e.settings` is a copy of
 *   the settings (write-only secrets left out) that the answer sends, changes included.
 * - `onSettingsUpdateRequest` around the save of `PATCH /api/settings`: `e.oldSettings` are the
 *   settings now, `e.newSettings` the patch merged onto them; what a handler changes in
 *   `e.newSettings` before `e.next()` is saved with the patch (validated as the rest). Not
 *   calling `e.next()` saves nothing.
 * - `onSettingsReload` after a stored change of the settings reached this instance (its own
 *   PATCH or another instance's). svcbase applies a stored change at once (ARCHITECTURE,
 *   invariant 6): the handlers see it applied, and not calling `e.next()` only ends the chain.
 */
import type { App } from '../../core/app.js'
import { addFeatureHooks, featureHook } from '../../core/hooks-features.js'
import type { RequestEvent } from '../../core/request-event.js'
import { Hook, type HookEvent } from '../../tools/hook.js'

type Obj = Record<string, unknown>

/** The event of `onSettingsListRequest`. */
export interface SettingsListRequestEvent extends RequestEvent {
  settings: Obj
}

/** The event of `onSettingsUpdateRequest`. */
export interface SettingsUpdateRequestEvent extends RequestEvent {
  oldSettings: Obj
  newSettings: Obj
}

/** The event of `onSettingsReload`. */
export interface SettingsReloadEvent extends HookEvent {
  app: App
}

declare module '../../core/hooks-features.js' {
  interface FeatureHooks {
    /** Around the answer of `GET /api/settings` (features/settings/hooks.ts). */
    onSettingsListRequest: Hook<SettingsListRequestEvent>
    /** Around the save of `PATCH /api/settings` (features/settings/hooks.ts). */
    onSettingsUpdateRequest: Hook<SettingsUpdateRequestEvent>
    /** After a stored change of the settings (features/settings/hooks.ts). */
    onSettingsReload: Hook<SettingsReloadEvent>
  }
}

/**
 * Adds the feature's families to the app's hooks, and fires `onSettingsReload` for every
 * stored change the app's bus brings while the app serves.
 */
export function addSettingsHooks(app: App): void {
  addFeatureHooks(app, {
    onSettingsListRequest: new Hook(),
    onSettingsUpdateRequest: new Hook(),
    onSettingsReload: new Hook(),
  })
  let unsubscribe: (() => void) | null = null
  app.hooks.onServe.bind(async (e) => {
    unsubscribe ??= app.events.subscribe(async (event) => {
      if (event.kind !== 'settings') return
      const hook = featureHook(app, 'onSettingsReload')
      if (!hook || hook.length === 0) return
      try {
        await hook.trigger({ app }, () => undefined)
      } catch (err) {
        app.logger.error('an onSettingsReload handler failed', { error: String(err) })
      }
    })
    await e.next()
  })
  app.hooks.onTerminate.bind(async (e) => {
    unsubscribe?.()
    unsubscribe = null
    await e.next()
  })
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `v`'s own key `k` set as data (a `__proto__` key stays a key). */
function put(o: Obj, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
}

/**
 * `patch` with what a handler changed in the merged settings (`before` as shown to it, `after`
 * as it left them): each changed leaf is added, so an untouched group stays out of the patch.
 */
export function withChanges(patch: Obj, before: unknown, after: unknown): Obj {
  const out: Obj = { ...patch }
  if (!isObj(after)) return out
  for (const [k, v] of Object.entries(after)) {
    const was = isObj(before) && Object.hasOwn(before, k) ? before[k] : undefined
    if (JSON.stringify(v) === JSON.stringify(was)) continue
    const mine = Object.hasOwn(out, k) ? out[k] : undefined
    put(out, k, isObj(v) && isObj(was) ? withChanges(isObj(mine) ? mine : {}, was, v) : v)
  }
  return out
}
