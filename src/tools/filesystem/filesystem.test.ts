import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestBucket, type TestBucket } from '../../../test/helpers/s3-bucket.js'
import { InvalidKeyError, LocalFilesystem, type Filesystem } from './index.js'
import { S3Filesystem } from './s3.js'

/** Reads a stream whole. */
async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array))
  return Buffer.concat(chunks)
}

/** A stream of `total` deterministic pseudo-random bytes in 1 MiB chunks, and their SHA-256. */
function bigStream(total: number): { stream: Readable; sha256: string } {
  const block = randomBytes(1024 * 1024)
  function* chunks() {
    for (let sent = 0, i = 0; sent < total; i++) {
      const chunk = Buffer.from(block.subarray(0, Math.min(block.length, total - sent)))
      chunk.writeUInt32BE(i, 0) // every chunk differs
      sent += chunk.length
      yield chunk
    }
  }
  const hash = createHash('sha256')
  for (const c of chunks()) hash.update(c)
  // NB: made lazily, so the writer pulls chunks at its own pace and nothing is held whole.
  return { stream: Readable.from(chunks()), sha256: hash.digest('hex') }
}

/** A stream that sends `bytes` bytes in 64 KiB chunks, then fails. */
function failingStream(bytes: number): Readable {
  let sent = 0
  return new Readable({
    read() {
      if (sent >= bytes) {
        this.destroy(new Error('client went away'))
        return
      }
      const n = Math.min(64 * 1024, bytes - sent)
      sent += n
      this.push(Buffer.alloc(n, 7))
    },
  })
}

interface Driver {
  name: string
  open(): Promise<Filesystem>
  /** Anything the driver leaves behind that a failed write must not: temp files, open uploads. */
  leftovers(fs: Filesystem): Promise<string[]>
  dispose(): Promise<void>
}

function localDriver(): Driver {
  let dir = ''
  return {
    name: 'local',
    async open() {
      dir = mkdtempSync(join(tmpdir(), 'svcbase-fs-'))
      return new LocalFilesystem(join(dir, 'storage'))
    },
    async leftovers() {
      try {
        const all = readdirSync(join(dir, 'storage'), { recursive: true, encoding: 'utf8' })
        return all.filter((f) => f.includes('.svcbase-tmp-'))
      } catch {
        return []
      }
    },
    async dispose() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function s3Driver(): Driver {
  let bucket: TestBucket | undefined
  return {
    name: 's3',
    async open() {
      bucket = await createTestBucket('fs')
      return new S3Filesystem(bucket.config)
    },
    async leftovers(fs) {
      const s3 = fs as S3Filesystem
      const res = await s3.client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }))
      return (res.Uploads ?? []).map((u) => `upload ${u.Key}`)
    },
    async dispose() {
      await bucket?.drop()
    },
  }
}

describe.each([localDriver(), s3Driver()])('Filesystem contract: $name', (driver) => {
  let fs: Filesystem

  beforeAll(async () => {
    fs = await driver.open()
  })
  afterAll(async () => {
    await fs?.close()
    await driver.dispose()
  })

  it('has its kind', () => {
    expect(fs.kind).toBe(driver.name)
  })

  it('writes and reads back a buffer, with stat', async () => {
    const body = Buffer.from('hello, storage')
    const before = Date.now()
    await fs.write('docs/hello.txt', body, { contentType: 'text/plain' })
    const info = await fs.stat('docs/hello.txt')
    expect(info).not.toBeNull()
    expect(info!.key).toBe('docs/hello.txt')
    expect(info!.size).toBe(body.length)
    expect(info!.lastModified).toBeInstanceOf(Date)
    // S3 keeps seconds only; allow for clock skew of a few seconds.
    expect(Math.abs(info!.lastModified.getTime() - before)).toBeLessThan(10_000)
    if (fs.kind === 's3') expect(info!.contentType).toBe('text/plain')
    else expect(info!.contentType).toBeUndefined()
    const read = await fs.read('docs/hello.txt')
    expect(read).not.toBeNull()
    expect(read!.range).toBeUndefined()
    expect(read!.info.size).toBe(body.length)
    expect((await collect(read!.stream)).toString()).toBe('hello, storage')
  })

  it('writes a stream and overwrites', async () => {
    await fs.write('docs/stream.bin', Readable.from([Buffer.from('ab'), Buffer.from('cd')]))
    expect((await collect((await fs.read('docs/stream.bin'))!.stream)).toString()).toBe('abcd')
    await fs.write('docs/stream.bin', Buffer.from('replaced'))
    expect((await collect((await fs.read('docs/stream.bin'))!.stream)).toString()).toBe('replaced')
    expect((await fs.stat('docs/stream.bin'))!.size).toBe(8)
  })

  it('writes an empty object', async () => {
    await fs.write('docs/empty', Buffer.alloc(0))
    expect((await fs.stat('docs/empty'))!.size).toBe(0)
    expect((await collect((await fs.read('docs/empty'))!.stream)).length).toBe(0)
    expect(await fs.delete('docs/empty')).toBe(true)
  })

  it('writes from a local file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-src-'))
    try {
      const path = join(dir, 'src.txt')
      writeFileSync(path, 'from a file')
      await fs.writeFile('docs/from-file.txt', path, { contentType: 'text/plain' })
      expect((await collect((await fs.read('docs/from-file.txt'))!.stream)).toString()).toBe(
        'from a file',
      )
      await expect(fs.writeFile('docs/missing.txt', join(dir, 'nope'))).rejects.toThrow()
      expect(await fs.stat('docs/missing.txt')).toBeNull()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('reads byte ranges', async () => {
    await fs.write('ranges/digits', Buffer.from('0123456789'))
    const r = await fs.read('ranges/digits', { start: 2, end: 5 })
    expect(r!.range).toEqual({ start: 2, end: 5 })
    expect(r!.info.size).toBe(10)
    expect((await collect(r!.stream)).toString()).toBe('2345')
    const one = await fs.read('ranges/digits', { start: 0, end: 0 })
    expect((await collect(one!.stream)).toString()).toBe('0')
    // An end past the object is clamped to its last byte.
    const tail = await fs.read('ranges/digits', { start: 7, end: 100 })
    expect(tail!.range).toEqual({ start: 7, end: 9 })
    expect((await collect(tail!.stream)).toString()).toBe('789')
    await expect(fs.read('ranges/digits', { start: 10, end: 12 })).rejects.toThrow(RangeError)
    await expect(fs.read('ranges/digits', { start: 5, end: 2 })).rejects.toThrow(RangeError)
    await expect(fs.read('ranges/digits', { start: -1, end: 2 })).rejects.toThrow(RangeError)
    expect(await fs.read('ranges/missing', { start: 0, end: 1 })).toBeNull()
  })

  it('answers null/false for missing keys', async () => {
    expect(await fs.stat('nothing/here.txt')).toBeNull()
    expect(await fs.read('nothing/here.txt')).toBeNull()
    expect(await fs.delete('nothing/here.txt')).toBe(false)
    expect(await fs.deletePrefix('nothing/')).toBe(0)
    expect(await fs.list('nothing/')).toEqual({ folders: [], files: [] })
    // A "folder" is not an object.
    await fs.write('dir/inner.txt', Buffer.from('x'))
    expect(await fs.stat('dir')).toBeNull()
    expect(await fs.read('dir')).toBeNull()
    expect(await fs.delete('dir')).toBe(false)
    expect(await fs.delete('dir/inner.txt')).toBe(true)
  })

  it('lists one level with folders', async () => {
    for (const key of [
      'tree/a/1.txt',
      'tree/a/2.txt',
      'tree/a/sub/x.txt',
      'tree/top.txt',
      'tree/b/y',
    ])
      await fs.write(key, Buffer.from(key))
    const root = await fs.list('tree/')
    expect(root.folders).toEqual(['tree/a/', 'tree/b/'])
    expect(root.files.map((f) => f.key)).toEqual(['tree/top.txt'])
    expect(root.files[0]!.size).toBe('tree/top.txt'.length)
    expect(root.files[0]!.lastModified).toBeInstanceOf(Date)
    const a = await fs.list('tree/a/')
    expect(a.folders).toEqual(['tree/a/sub/'])
    expect(a.files.map((f) => f.key)).toEqual(['tree/a/1.txt', 'tree/a/2.txt'])
    // A prefix that is not a folder matches names that start with it.
    expect((await fs.list('tree/a/1')).files.map((f) => f.key)).toEqual(['tree/a/1.txt'])
    expect((await fs.list('tree/t')).files.map((f) => f.key)).toEqual(['tree/top.txt'])
    const top = await fs.list('')
    expect(top.folders).toContain('tree/')
    expect(top.files).toEqual([])
  })

  it('deletes objects and drops emptied folders', async () => {
    await fs.write('gone/only/one.txt', Buffer.from('1'))
    expect((await fs.list('gone/')).folders).toEqual(['gone/only/'])
    expect(await fs.delete('gone/only/one.txt')).toBe(true)
    expect(await fs.stat('gone/only/one.txt')).toBeNull()
    expect(await fs.list('gone/')).toEqual({ folders: [], files: [] })
    expect((await fs.list('')).folders).not.toContain('gone/')
  })

  it('deletes by prefix', async () => {
    for (const key of ['del/a/1', 'del/a/2', 'del/a/deep/3', 'del/ab', 'del/b/4'])
      await fs.write(key, Buffer.from('x'))
    expect(await fs.deletePrefix('del/a/')).toBe(3)
    expect((await fs.list('del/')).folders).toEqual(['del/b/'])
    expect((await fs.list('del/')).files.map((f) => f.key)).toEqual(['del/ab'])
    expect(await fs.deletePrefix('del/')).toBe(2)
    expect((await fs.list('')).folders).not.toContain('del/')
    await expect(fs.deletePrefix('')).rejects.toThrow(InvalidKeyError)
  })

  it('lists and deletes more than 1000 keys (pagination, DeleteObjects batches)', async () => {
    const keys = Array.from({ length: 1010 }, (_, i) => `many/k${String(i).padStart(4, '0')}`)
    for (let i = 0; i < keys.length; i += 25)
      await Promise.all(keys.slice(i, i + 25).map((k) => fs.write(k, Buffer.from('v'))))
    await fs.write('many/sub/x', Buffer.from('v'))
    const listing = await fs.list('many/')
    expect(listing.files.map((f) => f.key)).toEqual(keys)
    expect(listing.folders).toEqual(['many/sub/'])
    expect(await fs.deletePrefix('many/')).toBe(1011)
    expect(await fs.list('many/')).toEqual({ folders: [], files: [] })
  }, 120_000)

  it('refuses invalid keys', async () => {
    const bad = ['', '/abs', 'a/../b', '..', '../x', 'a\\b', 'a\0b', 'a//b', 'a/', './a', 'a/./b']
    for (const key of bad) {
      await expect(fs.write(key, Buffer.from('x')), key).rejects.toThrow(InvalidKeyError)
      await expect(fs.stat(key), key).rejects.toThrow(InvalidKeyError)
      await expect(fs.read(key), key).rejects.toThrow(InvalidKeyError)
      await expect(fs.delete(key), key).rejects.toThrow(InvalidKeyError)
    }
    await expect(fs.write('x'.repeat(1025), Buffer.from('x'))).rejects.toThrow(InvalidKeyError)
    for (const prefix of ['../', '/', 'a/../', 'a\\']) {
      await expect(fs.list(prefix), prefix).rejects.toThrow(InvalidKeyError)
      await expect(fs.deletePrefix(prefix), prefix).rejects.toThrow(InvalidKeyError)
    }
  })

  it('accepts unusual but valid keys', async () => {
    const key = 'odd/名前 with spaces+plus&amp%20.txt'
    await fs.write(key, Buffer.from('odd'))
    expect((await fs.stat(key))!.size).toBe(3)
    expect((await fs.list('odd/')).files.map((f) => f.key)).toEqual([key])
    expect(await fs.delete(key)).toBe(true)
    // A name over 255 bytes: S3 stores it; a local file system cannot.
    const long = `odd/${'n'.repeat(300)}`
    if (fs.kind === 's3') {
      await fs.write(long, Buffer.from('long'))
      expect((await fs.stat(long))!.size).toBe(4)
      expect(await fs.delete(long)).toBe(true)
    } else {
      await expect(fs.write(long, Buffer.from('long'))).rejects.toThrow(InvalidKeyError)
      await expect(fs.stat(long)).rejects.toThrow(InvalidKeyError)
    }
    // 1024 bytes is the longest key.
    const longest = `odd/${Array(5).fill('k'.repeat(200)).join('/')}`.padEnd(1024, 'z')
    await fs.write(longest, Buffer.from('max'))
    expect((await fs.stat(longest))!.size).toBe(3)
    expect(await fs.delete(longest)).toBe(true)
  })

  it('leaves nothing when the stream fails midway (small body)', async () => {
    await expect(fs.write('broken/small.bin', failingStream(100 * 1024))).rejects.toThrow(
      'client went away',
    )
    expect(await fs.stat('broken/small.bin')).toBeNull()
    expect(await fs.list('broken/')).toEqual({ folders: [], files: [] })
    expect(await driver.leftovers(fs)).toEqual([])
  })

  it('leaves nothing when the stream fails midway (multipart body)', async () => {
    // 20 MiB: past two S3 parts, so a multipart upload was started and must be aborted.
    await expect(fs.write('broken/big.bin', failingStream(20 * 1024 * 1024))).rejects.toThrow(
      'client went away',
    )
    expect(await fs.stat('broken/big.bin')).toBeNull()
    expect(await fs.list('broken/')).toEqual({ folders: [], files: [] })
    expect(await driver.leftovers(fs)).toEqual([])
  })

  it('keeps the old object when an overwrite fails', async () => {
    await fs.write('keep/me.txt', Buffer.from('original'))
    await expect(fs.write('keep/me.txt', failingStream(64 * 1024))).rejects.toThrow()
    expect((await collect((await fs.read('keep/me.txt'))!.stream)).toString()).toBe('original')
  })

  it('streams 50 MB in and out byte-identical', async () => {
    const size = 50 * 1024 * 1024
    const { stream, sha256 } = bigStream(size)
    await fs.write('large/blob.bin', stream)
    expect((await fs.stat('large/blob.bin'))!.size).toBe(size)
    const read = await fs.read('large/blob.bin')
    const hash = createHash('sha256')
    let length = 0
    for await (const chunk of read!.stream) {
      hash.update(chunk as Buffer)
      length += (chunk as Buffer).length
    }
    expect(length).toBe(size)
    expect(hash.digest('hex')).toBe(sha256)
    const range = await fs.read('large/blob.bin', { start: size - 10, end: size - 1 })
    expect((await collect(range!.stream)).length).toBe(10)
    expect(await fs.delete('large/blob.bin')).toBe(true)
  }, 120_000)
})
