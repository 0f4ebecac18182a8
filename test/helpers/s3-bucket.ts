import { randomBytes } from 'node:crypto'
import { CreateBucketCommand, DeleteBucketCommand } from '@aws-sdk/client-s3'
import { createS3Client, S3Filesystem, type S3Config } from '../../src/tools/filesystem/s3.js'
import { s3Settings } from './s3.js'

/** A bucket of its own on the test S3 server, so suites running side by side never meet. */
export interface TestBucket {
  name: string
  /** The connection values for this bucket. */
  config: S3Config
  /** A settings `s3` block (enabled) pointing at this bucket. */
  settings: Record<string, unknown>
  /** Empties and deletes the bucket. */
  drop(): Promise<void>
}

/**
 * Creates a fresh bucket on the real S3 server of test/global-setup.ts. Throws (never skips)
 * when that server's variables are missing.
 */
export async function createTestBucket(label = 'test'): Promise<TestBucket> {
  const base = s3Settings()
  const name = `svc-${label}-${randomBytes(5).toString('hex')}`.toLowerCase()
  const config: S3Config = {
    bucket: name,
    region: String(base.region),
    endpoint: String(base.endpoint),
    accessKey: String(base.accessKey),
    secret: String(base.secret),
    forcePathStyle: true,
  }
  const client = createS3Client(config)
  try {
    await client.send(new CreateBucketCommand({ Bucket: name }))
  } finally {
    client.destroy()
  }
  return {
    name,
    config,
    settings: { ...base, bucket: name },
    async drop() {
      const fs = new S3Filesystem(config)
      try {
        const root = await fs.list('')
        for (const folder of root.folders) await fs.deletePrefix(folder)
        for (const f of root.files) await fs.delete(f.key)
        await fs.client.send(new DeleteBucketCommand({ Bucket: name }))
      } finally {
        await fs.close()
      }
    },
  }
}
