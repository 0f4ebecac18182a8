import { join } from 'node:path'
import type { Readable } from 'node:stream'
import {
  LocalFilesystem,
  LazyS3Filesystem,
  type ByteRange,
  type FileInfo,
  type Filesystem,
  type Listing,
  type ReadResult,
  type S3Config,
  type WriteOptions,
} from '../tools/filesystem/index.js'

/** An `s3` settings block as the storage reads it. */
export type S3Settings = S3Config & { enabled: boolean }

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** Reads a settings `s3` block defensively: missing or mistyped values become defaults. */
export function s3ConfigOf(block: unknown): S3Settings {
  const b = typeof block === 'object' && block !== null ? (block as Record<string, unknown>) : {}
  return {
    enabled: b.enabled === true,
    bucket: str(b.bucket),
    region: str(b.region),
    endpoint: str(b.endpoint),
    accessKey: str(b.accessKey),
    secret: str(b.secret),
    forcePathStyle: b.forcePathStyle === true,
  }
}

/** A driver in use, with the operations (and open read streams) still running on it. */
interface Driver {
  fs: Filesystem
  fingerprint: string
  active: number
  retired: boolean
}

/**
 * The app's storage: a Filesystem that follows the settings live. Each call reads the `s3`
 * block; when it is enabled the S3 driver serves (rebuilt only when its values change), otherwise
 * a LocalFilesystem at `localRoot`. A replaced S3 driver is closed once the calls and read
 * streams still using it are done.
 */
export class StorageSwitch implements Filesystem {
  private readonly local: Driver
  private s3: Driver | null = null

  /**
   * @param getConfig returns the current `s3` settings block (any shape; read by `s3ConfigOf`)
   * @param localRoot the folder of the local driver, `<dataDir>/storage`
   */
  constructor(
    private readonly getConfig: () => unknown,
    localRoot: string,
  ) {
    this.local = { fs: new LocalFilesystem(localRoot), fingerprint: '', active: 0, retired: false }
  }

  /** The driver kind the current settings select. */
  get kind(): 'local' | 's3' {
    return s3ConfigOf(this.getConfig()).enabled ? 's3' : 'local'
  }

  /** The driver the current settings select (building or replacing the S3 one as needed). */
  private current(): Driver {
    const config = s3ConfigOf(this.getConfig())
    if (!config.enabled) {
      if (this.s3) this.retire(this.s3)
      this.s3 = null
      return this.local
    }
    const fingerprint = JSON.stringify([
      config.bucket,
      config.region,
      config.endpoint,
      config.accessKey,
      config.secret,
      config.forcePathStyle,
    ])
    if (this.s3?.fingerprint !== fingerprint) {
      if (this.s3) this.retire(this.s3)
      this.s3 = null
      // NB: throws (on every call) while S3 is enabled without a bucket.
      this.s3 = { fs: new LazyS3Filesystem(config), fingerprint, active: 0, retired: false }
    }
    return this.s3
  }

  private retire(driver: Driver): void {
    driver.retired = true
    this.release(driver, 0)
  }

  private release(driver: Driver, by = 1): void {
    driver.active -= by
    if (driver.retired && driver.active === 0 && driver !== this.local) {
      driver.active = -1 // closed once
      void driver.fs.close().catch(() => undefined)
    }
  }

  /** Runs `op` on the current driver, keeping it open until `op` settles. */
  private async use<T>(op: (fs: Filesystem) => Promise<T>): Promise<T> {
    const driver = this.current()
    driver.active++
    try {
      return await op(driver.fs)
    } finally {
      this.release(driver)
    }
  }

  write(key: string, body: Readable | Buffer, options?: WriteOptions): Promise<void> {
    return this.use((fs) => fs.write(key, body, options))
  }

  writeFile(key: string, path: string, options?: WriteOptions): Promise<void> {
    return this.use((fs) => fs.writeFile(key, path, options))
  }

  stat(key: string): Promise<FileInfo | null> {
    return this.use((fs) => fs.stat(key))
  }

  async read(key: string, range?: ByteRange): Promise<ReadResult | null> {
    const driver = this.current()
    driver.active++
    let result: ReadResult | null = null
    try {
      result = await driver.fs.read(key, range)
      return result
    } finally {
      // NB: the stream outlives the call; the driver stays open until it closes.
      if (result) result.stream.once('close', () => this.release(driver))
      else this.release(driver)
    }
  }

  delete(key: string): Promise<boolean> {
    return this.use((fs) => fs.delete(key))
  }

  deletePrefix(prefix: string): Promise<number> {
    return this.use((fs) => fs.deletePrefix(prefix))
  }

  list(prefix: string): Promise<Listing> {
    return this.use((fs) => fs.list(prefix))
  }

  /** Closes the S3 driver, if any (the local one holds nothing open). */
  async close(): Promise<void> {
    const s3 = this.s3
    this.s3 = null
    if (s3) this.retire(s3)
  }
}

/** Builds the app's storage from a settings getter: `s3` from the settings, `<dataDir>/storage`. */
export function createStorage(getSettings: () => { s3: unknown }, dataDir: string): StorageSwitch {
  return new StorageSwitch(() => getSettings().s3, join(dataDir, 'storage'))
}
