/** How much a restore may unpack: the free disk space of the data directory, less a headroom. */
import { statfs } from 'node:fs/promises'
import type { ArchiveLimits } from './archive.js'

/** The share of the data directory's disk a restore leaves free (capped at {@link DISK_HEADROOM_MAX}). */
export const DISK_HEADROOM_PERCENT = 10
/** The most a restore keeps free: 1 GiB. */
export const DISK_HEADROOM_MAX = 1024 ** 3

/** The bytes a restore leaves free on a disk of `diskBytes`: 10 %, at most 1 GiB. */
export function diskHeadroom(diskBytes: number): number {
  return Math.min(DISK_HEADROOM_MAX, Math.ceil((diskBytes * DISK_HEADROOM_PERCENT) / 100))
}

/**
 * `limits` with their byte limit lowered to the free space of `dataDir`'s disk less
 * {@link diskHeadroom} (and the reason said), so a restore never leaves the server (its database,
 * logs, uploads) without room to write.
 */
export async function withDiskRoom(dataDir: string, limits: ArchiveLimits): Promise<ArchiveLimits> {
  const fsStats = await statfs(dataDir).catch(() => null)
  if (fsStats) {
    const free = fsStats.bavail * fsStats.bsize
    const headroom = diskHeadroom(fsStats.blocks * fsStats.bsize)
    const room = Math.max(0, free - headroom)
    if (room < limits.maxBytes) {
      limits.maxBytes = room
      limits.maxBytesReason = `the free disk space of the data directory, ${free} bytes, less a headroom of ${headroom} bytes kept free: ${DISK_HEADROOM_PERCENT} % of the disk, at most 1 GiB`
    }
  }
  return limits
}
