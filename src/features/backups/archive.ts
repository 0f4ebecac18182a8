/**
 * The backup archive: a ZIP written streaming with yazl (the database snapshots at the root, the
 * local `storage/` tree under `storage/`) and read back with yauzl, checked entry by entry before
 * a single byte is extracted (names, kinds, counts, sizes) and again while extracting (actual
 * sizes, CRC-32), so a zip-slip, a zip bomb or a damaged archive is refused early.
 */
import { createWriteStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { crc32 } from 'node:zlib'
import type yauzl from 'yauzl'
import { STORAGE_PREFIX } from '../../tools/archive-write.js'
import { lazyPackage } from '../../tools/lazy-module.js'

/** The ZIP reader, loaded with the first restore (tools/lazy-module.ts). */
const loadYauzl = lazyPackage<typeof yauzl>('yauzl')

export { STORAGE_PREFIX }

/** Limits of an archive read back (an upload's inspection, a restore's extraction). */
export interface ArchiveLimits {
  /** The most entries (files and folders). */
  maxEntries: number
  /** The most bytes once uncompressed, all entries together (declared and actual). */
  maxBytes: number
  /** Where `maxBytes` comes from when it is not the configured limit (said in the refusal). */
  maxBytesReason?: string
}

/** The refusal's words for an archive over `limits.maxBytes`. */
const overLimit = (limits: ArchiveLimits, verb: string): string =>
  `it ${verb} more than ${limits.maxBytes} bytes${limits.maxBytesReason ? ` (${limits.maxBytesReason})` : ''}`

/** Entries allowed by default in an archive read back. */
export const DEFAULT_MAX_ENTRIES = 200_000
/** Uncompressed bytes allowed by default (the free disk space may lower it). */
export const DEFAULT_MAX_BYTES = 64 * 1024 ** 3

/** An archive refused, with the reason for the client. */
export class ArchiveError extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'ArchiveError'
  }
}

export { writeArchive } from '../../tools/archive-write.js'

/** One entry as the first pass sees it. */
interface Entry {
  name: string
  folder: boolean
  entry: yauzl.Entry
}

/** The central directory of an archive, checked: names, kinds, counts, declared sizes. */
export interface Inspected {
  entries: Entry[]
  /** Names of the files at the root (the databases, for the store to check). */
  rootFiles: string[]
  /** The uncompressed size of everything, as declared. */
  declaredBytes: number
}

/** Why an entry name is refused, or null for a safe relative path. */
function nameProblem(name: string): string | null {
  if (name.includes('\\')) return 'has a backslash in it'
  if (name.includes('\0')) return 'has a NUL byte in it'
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is an absolute path'
  const parts = name.endsWith('/') ? name.slice(0, -1).split('/') : name.split('/')
  if (parts.some((p) => p === '..')) return 'leads out of the folder (..)'
  if (parts.some((p) => p === '' || p === '.')) return 'has an empty or "." path part'
  return null
}

const S_IFMT = 0o170000
const S_IFLNK = 0o120000
const S_IFREG = 0o100000
const S_IFDIR = 0o040000

/** Opens an archive lazily, raw names (we check them ourselves), sizes checked while reading. */
function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    loadYauzl().open(
      path,
      { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false },
      (err, zip) => {
        if (err || !zip)
          reject(
            new ArchiveError(
              `it is not a ZIP archive or it is cut short (${err?.message ?? 'unreadable'})`,
            ),
          )
        else resolve(zip)
      },
    )
  })
}

/**
 * Reads the central directory of the archive at `path` and checks every entry before anything
 * is extracted: a safe relative name (no `..`, absolute path or backslash), a file or folder
 * (no symlink), not encrypted, only database files at the root and `storage/…` below it, no
 * name twice, at most `limits.maxEntries` entries and `limits.maxBytes` declared bytes.
 * Rejects with an `ArchiveError` naming the first problem.
 */
export async function inspectArchive(path: string, limits: ArchiveLimits): Promise<Inspected> {
  const zip = await openZip(path)
  try {
    return await new Promise<Inspected>((resolve, reject) => {
      const entries: Entry[] = []
      const seen = new Set<string>()
      let declaredBytes = 0
      const fail = (reason: string) => reject(new ArchiveError(reason))
      zip.on('error', (err: Error) => fail(`it is damaged (${err.message})`))
      zip.on('end', () => {
        const rootFiles = entries.filter((e) => !e.folder && !e.name.includes('/'))
        if (rootFiles.length === 0) return fail('it holds no database file at its root')
        resolve({ entries, rootFiles: rootFiles.map((e) => e.name), declaredBytes })
      })
      zip.on('entry', (entry: yauzl.Entry) => {
        const raw = entry.fileName as unknown as Buffer
        const name = raw.toString('utf8')
        const shown = JSON.stringify(name.slice(0, 200))
        const problem = nameProblem(name)
        if (problem) return fail(`the entry ${shown} ${problem}`)
        const mode = (entry.externalFileAttributes >>> 16) & S_IFMT
        if (mode === S_IFLNK) return fail(`the entry ${shown} is a symbolic link`)
        const folder = name.endsWith('/')
        if (mode !== 0 && mode !== (folder ? S_IFDIR : S_IFREG))
          return fail(`the entry ${shown} is not a plain file or folder`)
        if ((entry.generalPurposeBitFlag & 1) !== 0) return fail(`the entry ${shown} is encrypted`)
        if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)
          return fail(`the entry ${shown} uses an unsupported compression method`)
        const atRoot = !name.slice(0, folder ? -1 : undefined).includes('/')
        if (!(atRoot && !folder) && !name.startsWith(STORAGE_PREFIX) && name !== STORAGE_PREFIX)
          return fail(`unexpected entry ${shown}: only database files and storage/ belong in it`)
        if (seen.has(name)) return fail(`the entry ${shown} appears twice`)
        seen.add(name)
        entries.push({ name, folder, entry })
        if (entries.length > limits.maxEntries)
          return fail(`it has more than ${limits.maxEntries} entries`)
        declaredBytes += entry.uncompressedSize
        if (declaredBytes > limits.maxBytes) return fail(overLimit(limits, 'would unpack to'))
        zip.readEntry()
      })
      zip.readEntry()
    })
  } finally {
    zip.close()
  }
}

/**
 * Extracts the archive at `path` (checked by `inspectArchive` first) into `target`: the root
 * files into `target/db/`, `storage/…` into `target/storage/`. Counts the bytes actually
 * inflated against `limits.maxBytes` and each entry's declared size, and checks each CRC-32,
 * so a lying header or damaged data is refused. Rejects with an `ArchiveError`.
 */
export async function extractArchive(
  path: string,
  target: string,
  limits: ArchiveLimits,
): Promise<Inspected> {
  const inspected = await inspectArchive(path, limits)
  const zip = await openZip(path)
  let total = 0
  try {
    await mkdir(join(target, 'db'), { recursive: true })
    for (const { name, folder, entry } of inspected.entries) {
      const out = name.includes('/') ? join(target, name) : join(target, 'db', name)
      if (folder) {
        await mkdir(out, { recursive: true })
        continue
      }
      await mkdir(dirname(out), { recursive: true })
      const stream = await new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(entry, (err, s) =>
          err || !s ? reject(err ?? new Error('no stream')) : resolve(s),
        ),
      )
      let crc = 0
      let size = 0
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length
          total += chunk.length
          if (size > entry.uncompressedSize)
            return done(
              new ArchiveError(`the entry ${JSON.stringify(name)} is larger than it declares`),
            )
          if (total > limits.maxBytes)
            return done(new ArchiveError(overLimit(limits, 'unpacks to')))
          crc = crc32(chunk, crc)
          done(null, chunk)
        },
      })
      try {
        await pipeline(stream, counter, createWriteStream(out))
      } catch (err) {
        if (err instanceof ArchiveError) throw err
        throw new ArchiveError(
          `the entry ${JSON.stringify(name)} is damaged (${(err as Error).message})`,
        )
      }
      if (size !== entry.uncompressedSize)
        throw new ArchiveError(`the entry ${JSON.stringify(name)} is shorter than it declares`)
      if (crc >>> 0 !== entry.crc32 >>> 0)
        throw new ArchiveError(`the entry ${JSON.stringify(name)} is damaged (CRC-32 mismatch)`)
    }
  } finally {
    zip.close()
  }
  return inspected
}
