import { createHash, randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, open, readdir, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { dirname, join, sep } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { assertKey, assertPrefix, clampRange, compareKeys, TEMP_PREFIX } from './keys.js'
import {
  InvalidKeyError,
  type ByteRange,
  type FileInfo,
  type Filesystem,
  type Listing,
  type ReadResult,
  type WriteOptions,
} from './types.js'

/**
 * The sidecar of an object's attributes, as PocketBase's local storage (Go CDK's `fileblob`)
 * keeps them: `<file>.attrs`, JSON with the content type and the content's MD5. PocketBase
 * serves a file without one as `application/octet-stream`.
 */
export const ATTRS_SUFFIX = '.attrs'

/** The `.attrs` JSON of an object of `contentType` whose MD5 digest is `md5`. */
function attrsJson(contentType: string, md5: Buffer): string {
  return JSON.stringify({
    'user.cache_control': '',
    'user.content_disposition': '',
    'user.content_encoding': '',
    'user.content_language': '',
    'user.content_type': contentType,
    'user.metadata': {},
    md5: md5.toString('base64'),
  })
}

/** Whether `name` is the attributes sidecar of an object beside it (part of it, not an object). */
const isAttrsOf = (name: string, siblings: ReadonlySet<string>): boolean =>
  name.endsWith(ATTRS_SUFFIX) && siblings.has(name.slice(0, -ATTRS_SUFFIX.length))

/** The longest file or folder name most local file systems allow, in bytes. */
const MAX_NAME_BYTES = 255

const errno = (err: unknown): string | undefined =>
  err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined

/** The temporary files this process is writing right now (absolute paths). */
const writing = new Set<string>()

/**
 * Whether this process is writing the temporary file at `path` right now (the sweep at start,
 * `core/temp-sweep.ts`, leaves such files alone).
 */
export function isWritingTempFile(path: string): boolean {
  return writing.has(path)
}

/**
 * The local-disk driver: key `a/b/c.txt` is the file `<root>/a/b/c.txt`. Writes go to a
 * temporary file in the same folder and are renamed into place, so a reader never sees half a
 * file and a failed write leaves nothing. Each object's content type and MD5 go beside it in
 * PocketBase's `<file>.attrs` sidecar, so PocketBase serves the same folder alike.
 *
 * NB: a key cannot be both an object and a folder here (`a` and `a/b`), unlike on S3.
 */
export class LocalFilesystem implements Filesystem {
  readonly kind = 'local' as const

  /** @param root the folder objects live in; created on the first write. */
  constructor(readonly root: string) {}

  private path(key: string): string {
    assertKey(key)
    const segments = key.split('/')
    // NB: file systems cap a name at 255 bytes; S3 has no such limit per segment.
    if (segments.some((s) => Buffer.byteLength(s) > MAX_NAME_BYTES)) throw new InvalidKeyError(key)
    return join(this.root, ...segments)
  }

  async write(key: string, body: Readable | Buffer, options?: WriteOptions): Promise<void> {
    const target = this.path(key)
    const dir = dirname(target)
    // The owner's process id in the name lets the sweep at start tell a crash's left-over from
    // another process's write in progress (`core/temp-sweep.ts`).
    const tmp = join(dir, `${TEMP_PREFIX}${process.pid}-${randomBytes(8).toString('hex')}`)
    let handle: FileHandle
    writing.add(tmp)
    try {
      for (let attempt = 0; ; attempt++) {
        await mkdir(dir, { recursive: true })
        try {
          handle = await open(tmp, 'wx')
          break
        } catch (err) {
          // NB: a concurrent delete may prune the folder between mkdir and open; try again.
          if (errno(err) !== 'ENOENT' || attempt >= 3) throw err
        }
      }
      try {
        const source = Buffer.isBuffer(body) ? Readable.from([body]) : body
        const md5 = createHash('md5')
        const digest = new Transform({
          transform(chunk: Buffer, _enc, done) {
            md5.update(chunk)
            done(null, chunk)
          },
        })
        // The write stream closes the handle when it finishes or fails.
        await pipeline(source, digest, handle.createWriteStream())
        const attrs = attrsJson(options?.contentType ?? '', md5.digest())
        await writeFile(`${tmp}${ATTRS_SUFFIX}`, attrs)
        await rename(`${tmp}${ATTRS_SUFFIX}`, `${target}${ATTRS_SUFFIX}`)
        await rename(tmp, target)
      } catch (err) {
        await handle.close().catch(() => undefined)
        await unlink(tmp).catch(() => undefined)
        await unlink(`${tmp}${ATTRS_SUFFIX}`).catch(() => undefined)
        await this.prune(dir)
        throw err
      }
    } finally {
      writing.delete(tmp)
    }
  }

  async writeFile(key: string, path: string, options?: WriteOptions): Promise<void> {
    this.path(key)
    // NB: opened first so a missing source fails here, not as an unhandled stream error.
    const source = await open(path, 'r')
    await this.write(key, source.createReadStream(), options)
  }

  async stat(key: string): Promise<FileInfo | null> {
    const path = this.path(key)
    try {
      const s = await stat(path)
      if (!s.isFile()) return null
      return { key, size: s.size, lastModified: s.mtime }
    } catch (err) {
      if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return null
      throw err
    }
  }

  async read(key: string, range?: ByteRange): Promise<ReadResult | null> {
    const path = this.path(key)
    let handle
    try {
      handle = await open(path, 'r')
    } catch (err) {
      const code = errno(err)
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null
      throw err
    }
    try {
      const s = await handle.stat()
      if (!s.isFile()) {
        await handle.close()
        return null
      }
      const info: FileInfo = { key, size: s.size, lastModified: s.mtime }
      if (!range) return { stream: createReadStream(path, { fd: handle }), info }
      const r = clampRange(range, s.size)
      const stream = createReadStream(path, { fd: handle, start: r.start, end: r.end })
      return { stream, info, range: r }
    } catch (err) {
      await handle.close()
      throw err
    }
  }

  async delete(key: string): Promise<boolean> {
    const path = this.path(key)
    try {
      const s = await stat(path)
      if (!s.isFile()) return false
      await unlink(path)
      await unlink(`${path}${ATTRS_SUFFIX}`).catch(ignoreMissing)
    } catch (err) {
      if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return false
      throw err
    }
    await this.prune(dirname(path))
    return true
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertPrefix(prefix, false)
    const { dir, name } = this.split(prefix)
    let count = 0
    const entries = await readdirOrEmpty(dir)
    const names = new Set(entries.map((e) => e.name))
    for (const entry of entries) {
      if (!entry.name.startsWith(name) || entry.name.startsWith(TEMP_PREFIX)) continue
      const path = join(dir, entry.name)
      if (entry.isDirectory()) count += await removeTree(path)
      else if (entry.isFile()) {
        await unlink(path).catch(ignoreMissing)
        if (!isAttrsOf(entry.name, names)) count++
      }
    }
    await this.prune(dir)
    return count
  }

  async list(prefix: string): Promise<Listing> {
    assertPrefix(prefix)
    const { dir, name } = this.split(prefix)
    const base = prefix.slice(0, prefix.length - name.length)
    const folders: string[] = []
    const files: FileInfo[] = []
    const entries = await readdirOrEmpty(dir)
    const names = new Set(entries.map((e) => e.name))
    for (const entry of entries) {
      if (!entry.name.startsWith(name) || entry.name.startsWith(TEMP_PREFIX)) continue
      if (isAttrsOf(entry.name, names)) continue
      const key = base + entry.name
      if (entry.isDirectory()) folders.push(`${key}/`)
      else if (entry.isFile()) {
        const s = await stat(join(dir, entry.name)).catch(ignoreMissing)
        if (s) files.push({ key, size: s.size, lastModified: s.mtime })
      }
    }
    folders.sort(compareKeys)
    files.sort((a, b) => compareKeys(a.key, b.key))
    return { folders, files }
  }

  async close(): Promise<void> {}

  /** Splits a prefix into the folder it lists and the name prefix of entries in it. */
  private split(prefix: string): { dir: string; name: string } {
    const slash = prefix.lastIndexOf('/')
    const folder = slash < 0 ? '' : prefix.slice(0, slash)
    return {
      dir: folder === '' ? this.root : join(this.root, ...folder.split('/')),
      name: prefix.slice(slash + 1),
    }
  }

  /** Removes empty folders from `dir` up to (not including) the root. */
  private async prune(dir: string): Promise<void> {
    const root = this.root.endsWith(sep) ? this.root : this.root + sep
    while (dir.startsWith(root) && dir.length > root.length) {
      try {
        await rmdir(dir)
      } catch {
        return // not empty (or gone): stop
      }
      dir = dirname(dir)
    }
  }
}

function ignoreMissing(err: unknown): undefined {
  if (errno(err) === 'ENOENT') return undefined
  throw err
}

async function readdirOrEmpty(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true })
  } catch (err) {
    if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return []
    throw err
  }
}

/** Deletes a folder tree; returns how many object files were in it (temporary files not counted). */
async function removeTree(dir: string): Promise<number> {
  let count = 0
  const entries = await readdirOrEmpty(dir)
  const names = new Set(entries.map((e) => e.name))
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) count += await removeTree(path)
    else {
      await unlink(path).catch(ignoreMissing)
      if (!entry.name.startsWith(TEMP_PREFIX) && !isAttrsOf(entry.name, names)) count++
    }
  }
  await rmdir(dir).catch(() => undefined)
  return count
}
