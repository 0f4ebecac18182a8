import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestBucket, type TestBucket } from '../../test/helpers/s3-bucket.js'
import { S3Filesystem } from '../tools/filesystem/s3.js'
import { createStorage, s3ConfigOf, StorageSwitch } from './storage.js'

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array))
  return Buffer.concat(chunks).toString()
}

describe('s3ConfigOf', () => {
  it('reads a settings block defensively', () => {
    expect(s3ConfigOf(undefined)).toEqual({
      enabled: false,
      bucket: '',
      region: '',
      endpoint: '',
      accessKey: '',
      secret: '',
      forcePathStyle: false,
    })
    expect(
      s3ConfigOf({ enabled: 'yes', bucket: 7, region: 'eu', forcePathStyle: true, extra: 1 }),
    ).toEqual({
      enabled: false,
      bucket: '',
      region: 'eu',
      endpoint: '',
      accessKey: '',
      secret: '',
      forcePathStyle: true,
    })
  })
})

describe('StorageSwitch', () => {
  let dir: string
  let bucket: TestBucket
  let s3: Record<string, unknown> = {}
  let storage: StorageSwitch
  let direct: S3Filesystem

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-switch-'))
    bucket = await createTestBucket('switch')
    direct = new S3Filesystem(bucket.config)
    storage = createStorage(() => ({ s3 }), dir)
  })
  afterAll(async () => {
    await storage?.close()
    await direct?.close()
    await bucket?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('follows the settings live, between local disk and S3', async () => {
    expect(storage.kind).toBe('local')
    await storage.write('a/local.txt', Buffer.from('on disk'))
    expect(readFileSync(join(dir, 'storage', 'a', 'local.txt'), 'utf8')).toBe('on disk')

    s3 = { ...bucket.settings }
    expect(storage.kind).toBe('s3')
    await storage.write('a/remote.txt', Buffer.from('in the bucket'))
    expect((await direct.stat('a/remote.txt'))?.size).toBe(13)
    expect(await storage.stat('a/local.txt')).toBeNull()

    s3 = { ...bucket.settings, enabled: false }
    expect(storage.kind).toBe('local')
    expect(await storage.stat('a/remote.txt')).toBeNull()
    expect(await text((await storage.read('a/local.txt'))!.stream)).toBe('on disk')
  })

  it('keeps a replaced S3 driver open until its read streams finish', async () => {
    s3 = { ...bucket.settings }
    await storage.write('big/blob', Buffer.alloc(4 * 1024 * 1024, 1))
    const open = await storage.read('big/blob')
    // New values: the next call builds a new driver and retires this one.
    // (An IP endpoint is addressed path-style either way.)
    s3 = { ...bucket.settings, forcePathStyle: false }
    expect((await storage.list('big/')).files.map((f) => f.key)).toEqual(['big/blob'])
    const body = await text(open!.stream)
    expect(body.length).toBe(4 * 1024 * 1024)
  })

  it('reports a clear error while S3 is enabled without a bucket', async () => {
    s3 = { ...bucket.settings, bucket: '' }
    expect(storage.kind).toBe('s3')
    await expect(storage.stat('x')).rejects.toThrow('no bucket')
    s3 = { ...bucket.settings }
    expect(await storage.stat('x')).toBeNull()
  })
})
