/**
 * Writing a backup archive: a ZIP written streaming with yazl, the database files at its root and
 * the local `storage/` tree under `storage/` (PocketBase's backup layout), one file read at a time.
 */
import { createWriteStream } from 'node:fs'
import { lstat, open, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type yazl from 'yazl'
import { TEMP_PREFIX } from './filesystem/keys.js'
import { lazyPackage } from './lazy-module.js'

/** The ZIP writer, loaded with the first archive (tools/lazy-module.ts). */
const loadYazl = lazyPackage<typeof yazl>('yazl')

/** The folder of local files inside an archive. */
export const STORAGE_PREFIX = 'storage/'

/** A file of the archive to write: where it is on disk, its name inside the archive. */
interface Source {
  path: string
  name: string
}

/** Every regular file under `root` (symlinks and other kinds left out), sorted by name. */
async function walk(root: string, prefix: string): Promise<Source[]> {
  const out: Source[] = []
  let names: string[]
  try {
    names = (await readdir(root)).sort()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out
    throw err
  }
  for (const name of names) {
    // A local write in progress (renamed into place when done) is not a file yet.
    if (name.startsWith(TEMP_PREFIX)) continue
    const path = join(root, name)
    const s = await lstat(path)
    if (s.isDirectory()) out.push(...(await walk(path, `${prefix}${name}/`)))
    else if (s.isFile()) out.push({ path, name: `${prefix}${name}` })
  }
  return out
}

/**
 * Writes the archive at `target`: each file of `databases` at the root, then (when `storageDir`
 * is given) every file under it below `storage/`. Files are read one at a time as the ZIP is
 * written out, so nothing is held whole in memory. Resolves to the archive's size.
 */
export async function writeArchive(
  target: string,
  databases: readonly string[],
  storageDir: string | null,
): Promise<number> {
  const zip = new (loadYazl().ZipFile)()
  const sources: Source[] = databases.map((path) => ({ path, name: path.split(/[/\\]/).pop()! }))
  if (storageDir) sources.push(...(await walk(storageDir, STORAGE_PREFIX)))
  const out = createWriteStream(target)
  const written = pipeline(zip.outputStream, out)
  for (const s of sources) {
    zip.addReadStreamLazy(s.name, { compressionLevel: 1 }, (cb) => {
      // NB: a file deleted since the walk (its record deleted meanwhile) is archived empty
      // rather than failing the whole backup.
      open(s.path, 'r').then(
        (handle) => cb(null, handle.createReadStream()),
        (err: NodeJS.ErrnoException) =>
          err.code === 'ENOENT' ? cb(null, Readable.from([])) : cb(err, undefined as never),
      )
    })
  }
  zip.end()
  await written
  return out.bytesWritten
}
