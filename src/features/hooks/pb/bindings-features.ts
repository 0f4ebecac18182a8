/**
 * PocketBase's `on…` registrations of the features' own hook families (realtime, settings,
 * files, batch, backups: `core/hooks-features.ts`), each bound to the family of the same name
 * with the event facade its handlers receive (`feature-events.ts`). Only the file hooks take
 * tags (collection names or ids), as PocketBase's; the others ignore any.
 *
 * A family is there only while its feature is on: registering a handler for one whose feature
 * is off (`--disable backups`, …) throws, so the file fails at load naming the hook, its line
 * and the feature.
 */
import type { App } from '../../../core/app.js'
import type { AppHooks } from '../../../core/hooks.js'
import type { FeatureHookName } from '../../../core/hooks-features.js'
import type { HookEvent } from '../../../tools/hook.js'
import {
  backupCreateEventOf,
  backupDeleteEventOf,
  backupRestoreEventOf,
  batchEventOf,
  fileDownloadEventOf,
  fileTokenEventOf,
  realtimeConnectEventOf,
  realtimeMessageEventOf,
  realtimeSubscribeEventOf,
  settingsListEventOf,
  settingsReloadEventOf,
  settingsUpdateEventOf,
} from './feature-events.js'

type Facade = (e: never) => object

/** Each family: the feature owning it, its facade, and whether it takes tags. */
const FEATURE_HOOKS = {
  onRealtimeConnectRequest: { feature: 'realtime', facade: realtimeConnectEventOf },
  onRealtimeSubscribeRequest: { feature: 'realtime', facade: realtimeSubscribeEventOf },
  onRealtimeMessageSend: { feature: 'realtime', facade: realtimeMessageEventOf },
  onSettingsListRequest: { feature: 'settings', facade: settingsListEventOf },
  onSettingsUpdateRequest: { feature: 'settings', facade: settingsUpdateEventOf },
  onSettingsReload: { feature: 'settings', facade: settingsReloadEventOf },
  onFileDownloadRequest: { feature: 'files', facade: fileDownloadEventOf, tags: true },
  onFileTokenRequest: { feature: 'files', facade: fileTokenEventOf, tags: true },
  onBatchRequest: { feature: 'batch', facade: batchEventOf },
  onBackupCreate: { feature: 'backups', facade: backupCreateEventOf },
  onBackupRestore: { feature: 'backups', facade: backupRestoreEventOf },
  onBackupDelete: { feature: 'backups', facade: backupDeleteEventOf },
} as const satisfies Record<FeatureHookName, { feature: string; facade: Facade; tags?: true }>

/** The registrations of the features' families a `*.pb.js` file has. */
export const FEATURE_HOOK_NAMES: readonly string[] = Object.keys(FEATURE_HOOKS)

/** A handler a script passed, run as one invocation on the event's facade. */
type Runner = (app: App, facade: object) => Promise<void>

interface Bindable {
  bind(h: { func: (e: HookEvent & { app: App }) => Promise<void> }, tags?: string[]): string
}

/** The message of a registration whose family's feature is off. */
export function featureOffMessage(name: string, feature: string): string {
  return `"${name}" cannot be bound: the ${feature} feature that fires it is off in this server (enable it, or remove the handler).`
}

/**
 * The registration functions of one file for the features' families, by PocketBase's name:
 * `register(name)(run, tags)` binds `run` (the script's handler, run on the facade) to the
 * family on `hooks` (the file's tracked hooks), or throws when the family's feature is off.
 */
export function featureHookRegistrations(
  hooks: AppHooks,
): Record<string, (run: Runner, tags: string[]) => void> {
  const families = hooks as unknown as Partial<Record<string, Bindable>>
  const out: Record<string, (run: Runner, tags: string[]) => void> = {}
  for (const [name, spec] of Object.entries(FEATURE_HOOKS)) {
    const facade = spec.facade as Facade
    const tagged = 'tags' in spec
    out[name] = (run, tags) => {
      const family = families[name]
      if (!family) throw new Error(featureOffMessage(name, spec.feature))
      family.bind({ func: (e) => run(e.app, facade(e as never)) }, tagged ? tags : undefined)
    }
  }
  return out
}
