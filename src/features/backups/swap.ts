/**
 * The data swap of a restore, run by the in-process restart while the app is stopped.
 */
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Store } from '../../store/store.js'

/** What the work between stop and start of a restart leaves to finish (see `server.ts`). */
export interface RestartPlan {
  undo?(): Promise<void>
  done?(): Promise<void>
}

/**
 * Swaps the content of `dataDir` (the app is stopped): everything but the `keep` names
 * (`backups/`, `.svc_tmp/`) moves aside into `work/old/`, the extracted databases and `storage/` move in.
 * `undo` puts the old content back; `done` removes it.
 */
export async function swapDataDir(
  dataDir: string,
  extracted: string,
  work: string,
  keep: readonly string[],
): Promise<RestartPlan> {
  const old = join(work, 'old')
  const failed = join(work, 'failed')
  await mkdir(old)
  await mkdir(failed)
  const kept = (name: string) => keep.includes(name)
  const moveAll = async (from: string, to: string, skip: (n: string) => boolean) => {
    for (const name of await readdir(from)) {
      if (!skip(name)) await rename(join(from, name), join(to, name))
    }
  }
  const undo = async () => {
    await moveAll(dataDir, failed, kept)
    await moveAll(old, dataDir, () => false)
  }
  try {
    await moveAll(dataDir, old, kept)
    await moveAll(join(extracted, 'db'), dataDir, () => false)
    const storage = join(extracted, 'storage')
    if (await stat(storage).catch(() => null)) await rename(storage, join(dataDir, 'storage'))
  } catch (err) {
    await undo()
    throw err
  }
  return { undo, done: () => rm(work, { recursive: true, force: true }) }
}

/**
 * Moves `storage/` of `dataDir` aside into `work/old-storage` and the extracted one (if the
 * archive had files) into its place. `undo` puts the old one back; `done` removes it.
 */
async function swapStorage(dataDir: string, extracted: string, work: string): Promise<RestartPlan> {
  const live = join(dataDir, 'storage')
  const old = join(work, 'old-storage')
  const failed = join(work, 'failed-storage')
  const exists = async (p: string) => (await stat(p).catch(() => null)) !== null
  const movedAside = await exists(live)
  if (movedAside) await rename(live, old)
  const undo = async () => {
    if (await exists(live)) await rename(live, failed)
    if (movedAside) await rename(old, live)
  }
  try {
    const incoming = join(extracted, 'storage')
    if (await exists(incoming)) await rename(incoming, live)
  } catch (err) {
    await undo()
    throw err
  }
  return { undo, done: () => rm(old, { recursive: true, force: true }) }
}

/**
 * The data swap of a restore (the app is stopped): through the store's own `restore` when it
 * has one (PostgreSQL: the databases live outside the data folder), with only `storage/` of the
 * data folder swapped as files; else every file of the data folder (`swapDataDir`).
 */
export async function swapData(
  store: Store,
  dataDir: string,
  extracted: string,
  work: string,
  keep: readonly string[],
): Promise<RestartPlan> {
  if (!store.restore) return swapDataDir(dataDir, extracted, work, keep)
  const databases = await store.restore(join(extracted, 'db'))
  let files: RestartPlan
  try {
    files = await swapStorage(dataDir, extracted, work)
  } catch (err) {
    await databases.undo()
    throw err
  }
  return {
    undo: async () => {
      await files.undo?.()
      await databases.undo()
    },
    done: async () => {
      await databases.done()
      await files.done?.()
    },
  }
}
