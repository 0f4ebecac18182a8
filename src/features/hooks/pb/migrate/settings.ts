/**
 * `app.settings()` in a migration: a copy of the settings (PocketBase's JSON groups: `meta`,
 * `smtp`, …) that the script changes in place and hands back to `app.save(settings)`; the save
 * sends the groups that differ from the current ones to the settings service.
 */
import type { App } from '../../../../core/app.js'
import { badRequest, hasErrors, messages } from '../../../../core/errors.js'
import { deepMerge } from '../../../../core/settings/merge.js'
import type { SettingsValidationContext } from '../../../../core/settings/group.js'
import type { Settings } from '../../../../core/settings/registry.js'
import { validateIpList } from '../../../../http/superuser-ips.js'

/** Marks a settings copy (so `app.save` knows it). */
const SETTINGS = Symbol('svcbase.pbSettings')

type Json = Record<string, unknown>

/** The script's copy of the settings. */
export function settingsView(settings: unknown): Json {
  const copy = structuredClone(settings) as Json
  Object.defineProperty(copy, SETTINGS, { value: true, enumerable: false })
  return copy
}

/** True for a copy made by {@link settingsView}. */
export function isSettings(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && SETTINGS in v
}

/** The top-level groups of `changed` that differ from `current`, as a settings patch. */
export function settingsPatch(current: Settings, changed: Json): Json {
  const now = current as unknown as Json
  const patch: Json = {}
  for (const [k, v] of Object.entries(changed))
    if (JSON.stringify(v) !== JSON.stringify(now[k])) patch[k] = structuredClone(v)
  return patch
}

/** What settings validation needs to know of the app (as `PATCH /api/settings` gives it). */
function validationContext(app: App): SettingsValidationContext {
  return {
    collectionExists: (name) =>
      app.collections.find(name)?.name.toLowerCase() === name.toLowerCase(),
    checkIpList: validateIpList,
  }
}

/** Refuses `patch` as `PATCH /api/settings` would (a 400 with the field errors), else nothing. */
export function checkSettings(app: App, patch: Json): void {
  const merged = deepMerge(app.settings.get() as unknown as Json, patch)
  const errors = app.settings.validate(patch, merged, validationContext(app))
  if (hasErrors(errors)) throw badRequest(messages.settingsSaveFailed, errors)
}
