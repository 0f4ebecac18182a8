/**
 * svcbase's own temporary files on disk, and the sweep at start that removes what a crashed
 * process (`kill -9`, power loss) left behind (the upload folders before serving, the storage
 * temp files in the background):
 *
 * - upload folders: a multipart request's file parts are spooled to
 *   `<dataDir>/.svc_tmp/uploads/up-<pid>-<random>/` (never the shared system temp folder) and the
 *   folder is removed when the request ends;
 * - the local storage driver's atomic writes: `.svcbase-tmp-<pid>-<hex>` next to their target
 *   under `<dataDir>/storage/`, renamed into place when complete.
 *
 * Each name carries the id of the process that made it, so the sweep is safe while other
 * processes use the same data folder (`serve --workers N` starts a replacement worker while the
 * others serve): it removes a name only when its process is gone, or when it is this process's
 * own and not in use. Names svcbase does not make are never touched, symbolic links never
 * followed.
 *
 * NB: the process check assumes the data folder belongs to one machine (as SQLite requires);
 * a folder shared by several hosts would see the other hosts' live ids as gone or reused.
 */
import { mkdir, mkdtemp, readdir, rm, rmdir, unlink } from 'node:fs/promises'
import { dirname, join, sep } from 'node:path'
import { TEMP_PREFIX, tempFileOwner } from '../tools/filesystem/keys.js'
import { isWritingTempFile } from '../tools/filesystem/local.js'
import type { Logger } from './logger.js'

/** Where request uploads are spooled, relative to the data folder. */
export const UPLOADS_DIR = join('.svc_tmp', 'uploads')

/** The name of an upload folder: `up-<pid>-<6 random characters of mkdtemp>`. */
const UPLOAD_NAME = /^up-(\d{1,10})-[A-Za-z0-9]{6}$/

/** The upload folders this process holds right now (absolute paths). */
const liveUploads = new Set<string>()

/** Makes a fresh upload folder under `<dataDir>/.svc_tmp/uploads/`, owned by this process. */
export async function createUploadDir(dataDir: string): Promise<string> {
  const root = join(dataDir, UPLOADS_DIR)
  for (let attempt = 0; ; attempt++) {
    try {
      await mkdir(root, { recursive: true })
      const dir = await mkdtemp(join(root, `up-${process.pid}-`))
      liveUploads.add(dir)
      return dir
    } catch (err) {
      // NB: the last upload's removal may take the empty folder away in between: after mkdir
      // (mkdtemp fails), or inside it (a recursive mkdir that finds the folder checks it with a
      // stat, which then fails). Try again.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 10) throw err
    }
  }
}

/**
 * Removes an upload folder made by {@link createUploadDir} (and forgets it), and the uploads
 * folder with it when no other upload is left in it.
 */
export async function removeUploadDir(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true })
  } finally {
    liveUploads.delete(dir)
  }
  await rmdir(dirname(dir)).catch(() => undefined) // not empty: another upload is in flight
}

/**
 * Whether the process `pid` is gone. This process's own id counts as gone (its own live names
 * are checked separately): a name with it made before this process started belongs to an
 * earlier process that had the same id (a container's pid 1 after a restart).
 */
export function processGone(pid: number): boolean {
  if (pid === process.pid) return true
  // NB: 0 and negative ids would signal process groups.
  if (!Number.isSafeInteger(pid) || pid <= 0) return true
  try {
    process.kill(pid, 0)
    return false
  } catch (err) {
    // EPERM: alive, owned by someone else; ESRCH: gone; EINVAL: no such id can exist.
    return (err as NodeJS.ErrnoException).code !== 'EPERM'
  }
}

/** What a sweep removed. */
export interface SweepResult {
  /** Upload folders of gone processes. */
  uploads: number
  /**
   * `.svcbase-tmp-*` files of gone processes under the local storage folder: settles when the
   * walk of the storage folder, which runs in the background, is over.
   */
  storage: Promise<number>
}

/** The storage walks in progress, by storage folder (a restart in-process does not start two). */
const walks = new Map<string, Promise<number>>()

/**
 * Removes the left-overs of crashed processes (see the module comment): the upload folders
 * before it resolves, so before the app serves; the storage temp files in a walk of
 * `<dataDir>/storage/` that goes on in the background (a large storage folder takes about a
 * second per 20 000 record folders, and every name it removes is safe to remove at any time).
 * Never fails: a folder it cannot read is skipped and logged.
 */
export async function sweepTemp(dataDir: string, logger?: Logger): Promise<SweepResult> {
  const warn = (what: string, err: unknown) =>
    logger?.warn(`temp sweep: ${what}`, { error: String(err) })

  let removedUploads = 0
  const uploads = join(dataDir, UPLOADS_DIR)
  for (const entry of await readdirOrEmpty(uploads, warn)) {
    const m = UPLOAD_NAME.exec(entry.name)
    if (!m || !entry.isDirectory()) continue
    const path = join(uploads, entry.name)
    if (liveUploads.has(path) || !processGone(Number(m[1]))) continue
    try {
      await rm(path, { recursive: true, force: true })
      removedUploads++
    } catch (err) {
      warn(`cannot remove ${path}`, err)
    }
  }
  if (removedUploads > 0)
    logger?.info('removed upload folders left by a stopped process', { count: removedUploads })

  const storage = join(dataDir, 'storage')
  let walk = walks.get(storage)
  if (!walk) {
    walk = sweepStorage(storage, warn)
      .then((count) => {
        if (count > 0)
          logger?.info('removed storage temp files left by a stopped process', { count })
        return count
      })
      .finally(() => walks.delete(storage))
    walks.set(storage, walk)
  }
  return { uploads: removedUploads, storage: walk }
}

/** Removes the `.svcbase-tmp-*` files of gone processes under `storage`; resolves to how many. */
async function sweepStorage(
  storage: string,
  warn: (what: string, err: unknown) => void,
): Promise<number> {
  let removed = 0
  const emptied = new Set<string>()
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdirOrEmpty(dir, warn)) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        // NB: Dirent of a symbolic link is never a directory: links are not followed.
        if (!entry.name.startsWith(TEMP_PREFIX)) await walk(path)
        continue
      }
      if (!entry.isFile()) continue
      const owner = tempFileOwner(entry.name)
      if (owner === null || isWritingTempFile(path)) continue
      // A name without an owner comes from an older svcbase, which named them that way.
      if (owner !== 'legacy' && !processGone(owner)) continue
      try {
        await unlink(path)
        removed++
        emptied.add(dir)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warn(`cannot remove ${path}`, err)
      }
    }
  }
  await walk(storage)
  // A crash during a record's first upload left its folder with only the temp file in it.
  for (const dir of emptied) await pruneEmpty(dir, storage)
  return removed
}

/** Removes `dir` and its parents while empty, up to (not including) `root`. */
async function pruneEmpty(dir: string, root: string): Promise<void> {
  const prefix = root.endsWith(sep) ? root : root + sep
  while (dir.startsWith(prefix) && dir.length > prefix.length) {
    try {
      await rmdir(dir)
    } catch {
      return // not empty (or gone): stop
    }
    dir = dirname(dir)
  }
}

async function readdirOrEmpty(dir: string, warn: (what: string, err: unknown) => void) {
  try {
    return await readdir(dir, { withFileTypes: true })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') warn(`cannot read ${dir}`, err)
    return []
  }
}
