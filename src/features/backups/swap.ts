/**
 * The data swap of a restore, run by the in-process restart while the app is stopped.
 */
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'

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
