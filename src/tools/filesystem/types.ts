import type { Readable } from 'node:stream'

/** What is known about a stored object. */
export interface FileInfo {
  key: string
  size: number
  lastModified: Date
  /** The content type recorded at upload, if the driver keeps one. */
  contentType?: string
}

/** A byte range, inclusive at both ends as in HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number
  end: number
}

/** An object opened for reading (a whole object, or one range of it). */
export interface ReadResult {
  stream: Readable
  info: FileInfo
  /** Present when a range was read. */
  range?: ByteRange
}

/** Options of a write. */
export interface WriteOptions {
  contentType?: string
  /** Known length in bytes, when the caller has it (lets S3 avoid buffering). */
  size?: number
}

/** One level of a listing: sub-prefixes ending in `/`, and objects. */
export interface Listing {
  folders: string[]
  files: FileInfo[]
}

/**
 * Object storage behind one small interface, with a local-disk and an S3 driver. Keys are flat
 * strings (`collectionId/recordId/name`); `/` only simulates folders in listings.
 */
export interface Filesystem {
  readonly kind: 'local' | 's3'
  /** Writes (or overwrites) an object from a stream or buffer, streaming: never whole in memory. */
  write(key: string, body: Readable | Buffer, options?: WriteOptions): Promise<void>
  /** Writes an object from a file on local disk. */
  writeFile(key: string, path: string, options?: WriteOptions): Promise<void>
  /** Metadata, or null when the key does not exist. */
  stat(key: string): Promise<FileInfo | null>
  /** Opens an object (or one range of it) for streaming, or null when it does not exist. */
  read(key: string, range?: ByteRange): Promise<ReadResult | null>
  /** Deletes one object; false when it did not exist. */
  delete(key: string): Promise<boolean>
  /** Deletes every object whose key starts with `prefix`; returns how many. */
  deletePrefix(prefix: string): Promise<number>
  /** Lists one level below `prefix` (which is empty or ends in `/`). */
  list(prefix: string): Promise<Listing>
  /** Releases connections. */
  close(): Promise<void>
}

/** Raised for keys that would escape the storage root or are otherwise malformed. */
export class InvalidKeyError extends Error {
  constructor(key: string) {
    super(`invalid object key "${key}"`)
    this.name = 'InvalidKeyError'
  }
}
