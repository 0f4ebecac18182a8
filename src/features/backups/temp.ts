/**
 * The backups feature's temporary work (`<dataDir>/.svc_tmp/`, never archived): a fresh folder
 * per backup or restore, and the left-overs of a crash removed at start.
 */
import { lstat, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

/** The folder of the feature's temporary work inside the data directory (never archived). */
export const TMP_DIR = '.svc_tmp'
/** Temporary folders older than this are left-overs of a crash, removed at start. */
const STALE_TMP_MS = 60 * 60 * 1000

/** A fresh folder under `<dataDir>/.svc_tmp/`, its name starting with `label`. */
export async function freshTempDir(dataDir: string, label: string): Promise<string> {
  const root = join(dataDir, TMP_DIR)
  await mkdir(root, { recursive: true })
  return mkdtemp(join(root, `${label}-`))
}

/** Removes what a crash left in `<dataDir>/.svc_tmp/` (folders older than an hour). */
export async function removeStaleTemp(dataDir: string, now = Date.now()): Promise<void> {
  const root = join(dataDir, TMP_DIR)
  const names = await readdir(root).catch(() => [] as string[])
  for (const name of names) {
    const s = await lstat(join(root, name)).catch(() => null)
    if (s && now - s.mtimeMs > STALE_TMP_MS)
      await rm(join(root, name), { recursive: true, force: true }).catch(() => undefined)
  }
}
