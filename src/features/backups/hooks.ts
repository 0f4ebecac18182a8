/**
 * The backups feature's hook families, declared here and created when the feature registers
 * (`core/hooks-features.ts`):
 * - `onBackupCreate` (PocketBase's) around every backup's making (the API's and the automatic
 *   job's), after the name the client gave was checked: `e.name` is that name (`""` when none
 *   was given, the default `svc_backup_<timestamp>.zip` then being chosen by the action), and a
 *   handler may change it (checked again as a client's name); not calling `e.next()` makes no
 *   backup. Once the action ran, `e.name` is the archive written.
 * - `onBackupRestore` (PocketBase's) around a restore, once the archive `e.name` was checked and
 *   the 204 sent: not calling `e.next()` leaves the data as it is (the server keeps serving it).
 * - `onBackupDelete` (svcbase's) around the deletion of archive `e.name`, the API's and the
 *   automatic job's rotation; not calling `e.next()` keeps it.
 * `e.exclude` lists the data directory's entries no archive holds (svcbase archives only the
 * databases and `storage/`, so changing it changes nothing); `e.requestInfo` is the request that
 * asked (`null` for the automatic job and scripts).
 */
import type { App } from '../../core/app.js'
import { addFeatureHooks, featureHook } from '../../core/hooks-features.js'
import type { RequestInfo } from '../../core/request-info.js'
import { Hook, type HookEvent } from '../../tools/hook.js'
import { checkedName } from './names.js'

/** The event of `onBackupCreate`, `onBackupRestore` and `onBackupDelete`. */
export interface BackupEvent extends HookEvent {
  app: App
  /** The archive's name (`""` for the default one, in `onBackupCreate` before its action). */
  name: string
  /** The data directory's entries left out of every archive. */
  exclude: string[]
  /** The request that asked; `null` for the automatic job and scripts. */
  requestInfo: RequestInfo | null
}

declare module '../../core/hooks-features.js' {
  interface FeatureHooks {
    /** Around the making of every backup (features/backups/hooks.ts). */
    onBackupCreate: Hook<BackupEvent>
    /** Around a restore, after its 204 (features/backups/hooks.ts). */
    onBackupRestore: Hook<BackupEvent>
    /** Around the deletion of an archive (features/backups/hooks.ts). */
    onBackupDelete: Hook<BackupEvent>
  }
}

/** The entries of the data directory no archive holds. */
const EXCLUDED = ['backups', '.svc_tmp']

/** Adds the feature's families to the app's hooks. */
export function addBackupHooks(app: App): void {
  addFeatureHooks(app, {
    onBackupCreate: new Hook(),
    onBackupRestore: new Hook(),
    onBackupDelete: new Hook(),
  })
}

/** The name a client asked for, checked: `""` when it gave none. */
export function askedName(name: unknown): string {
  return name === undefined || name === null || name === '' ? '' : checkedName(name)
}

/** A fresh event of the feature's families. */
function eventOf(app: App, name: string, info: RequestInfo | null) {
  return { app, name, exclude: [...EXCLUDED], requestInfo: info }
}

/**
 * Runs `write` (the making of archive `key`) inside `onBackupCreate`; resolves to the key
 * written, or `""` when a handler did not call `e.next()`.
 */
export async function aroundCreate(
  app: App,
  asked: string,
  info: RequestInfo | null,
  write: (key: string) => Promise<string>,
): Promise<string> {
  const hook = featureHook(app, 'onBackupCreate')
  const keyOf = (name: string): string => (name === asked && name !== '' ? name : checkedName(name))
  if (!hook?.length) return write(keyOf(asked))
  let key = ''
  await hook.trigger(eventOf(app, asked, info), async (e) => {
    key = await write(keyOf(e.name))
    e.name = key
  })
  return key
}

/**
 * Runs `action` on archive `key` inside `onBackupRestore` (the swap and restart) or
 * `onBackupDelete` (the deletion); not run when a handler does not call `e.next()`.
 */
export async function aroundArchive(
  app: App,
  family: 'onBackupRestore' | 'onBackupDelete',
  key: string,
  info: RequestInfo | null,
  action: () => Promise<void>,
): Promise<void> {
  const hook = featureHook(app, family)
  if (!hook?.length) return action()
  await hook.trigger(eventOf(app, key, info), () => action())
}
