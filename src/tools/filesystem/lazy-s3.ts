import type { Readable } from 'node:stream'
import type { S3Config } from './s3.js'
import type { ByteRange, FileInfo, Filesystem, Listing, ReadResult, WriteOptions } from './types.js'

type Driver = Filesystem

/**
 * The S3 driver, loaded on first use: the AWS SDK costs tens of megabytes of memory, which an
 * app storing files on local disk should never pay.
 */
export class LazyS3Filesystem implements Filesystem {
  readonly kind = 's3' as const
  private driver: Promise<Driver> | null = null

  constructor(private readonly config: S3Config) {}

  private load(): Promise<Driver> {
    this.driver ??= import('./s3.js').then((m) => new m.S3Filesystem(this.config))
    return this.driver
  }

  async write(key: string, body: Readable | Buffer, options?: WriteOptions): Promise<void> {
    return (await this.load()).write(key, body, options)
  }
  async writeFile(key: string, path: string, options?: WriteOptions): Promise<void> {
    return (await this.load()).writeFile(key, path, options)
  }
  async stat(key: string): Promise<FileInfo | null> {
    return (await this.load()).stat(key)
  }
  async read(key: string, range?: ByteRange): Promise<ReadResult | null> {
    return (await this.load()).read(key, range)
  }
  async delete(key: string): Promise<boolean> {
    return (await this.load()).delete(key)
  }
  async deletePrefix(prefix: string): Promise<number> {
    return (await this.load()).deletePrefix(prefix)
  }
  async list(prefix: string): Promise<Listing> {
    return (await this.load()).list(prefix)
  }
  async close(): Promise<void> {
    if (this.driver) await (await this.driver).close()
  }
}

/** Runs the S3 probe round trip (loading the SDK only then). */
export async function probeS3Lazily(
  config: S3Config,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const { probeS3 } = await import('./s3.js')
  await probeS3(config, options)
}
