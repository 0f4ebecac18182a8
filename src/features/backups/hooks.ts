/**
 * The backups feature's hook families (PocketBase's `onBackupCreate` and `onBackupRestore`),
 * declared here and created when the feature registers (`core/hooks-features.ts`):
 * - `onBackupCreate` around every backup's making (the API's and the automatic job's), after the
 *   name the client gave was checked: `e.name` is that name (`""` when none was given, the
 *   default `svc_backup_<timestamp>.zip` then being chosen by the action), and a handler may
 *   change it (checked again as a client's name); not calling `e.next()` makes no backup.
 * - `onBackupRestore` around a restore, once the archive `e.name` was checked and the 204 sent:
 *   not calling `e.next()` leaves the data as it is (the server keeps serving it).
 * `e.exclude` lists the data directory's entries no archive holds (svcbase archives only the
 * databases and `storage/`, so changing it changes nothing).
 */
import type { App } from '../../core/app.js'
import { addFeatureHooks, featureHook } from '../../core/hooks-features.js'
import { Hook, type HookEvent } from '../../tools/hook.js'
import { checkedName } from './names.js'

/** The event of `onBackupCreate` and `onBackupRestore`. */
export interface BackupEvent extends HookEvent {
  app: App
  /** The archive's name (`""` for the default one, in `onBackupCreate`). */
  name: string
  /** The data directory's entries left out of every archive. */
  exclude: string[]
}

declare module '../../core/hooks-features.js' {
  interface FeatureHooks {
    /** Around the making of every backup (features/backups/hooks.ts). */
    onBackupCreate: Hook<BackupEvent>
    /** Around a restore, after its 204 (features/backups/hooks.ts). */
    onBackupRestore: Hook<BackupEvent>
  }
}

/** The entries of the data directory no archive holds. */
const EXCLUDED = ['backups', '.svc_tmp']

/** Adds the feature's families to the app's hooks. */
export function addBackupHooks(app: App): void {
  addFeatureHooks(app, { onBackupCreate: new Hook(), onBackupRestore: new Hook() })
}

/** The name a client asked for, checked: `""` when it gave none. */
export function askedName(name: unknown): string {
  return name === undefined || name === null || name === '' ? '' : checkedName(name)
}

/**
 * Runs `write` (the making of archive `key`) inside `onBackupCreate`; resolves to the key
 * written, or `""` when a handler did not call `e.next()`.
 */
export async function aroundCreate(
  app: App,
  asked: string,
  write: (key: string) => Promise<string>,
): Promise<string> {
  const hook = featureHook(app, 'onBackupCreate')
  const keyOf = (name: string): string => (name === asked && name !== '' ? name : checkedName(name))
  if (!hook?.length) return write(keyOf(asked))
  let key = ''
  await hook.trigger({ app, name: asked, exclude: [...EXCLUDED] }, async (e) => {
    key = await write(keyOf(e.name))
  })
  return key
}

/** Runs `restore` (the swap and restart) inside `onBackupRestore` for archive `key`. */
export async function aroundRestore(
  app: App,
  key: string,
  restore: () => Promise<void>,
): Promise<void> {
  const hook = featureHook(app, 'onBackupRestore')
  if (!hook?.length) return restore()
  await hook.trigger({ app, name: key, exclude: [...EXCLUDED] }, () => restore())
}
