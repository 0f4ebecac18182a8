import { createHash, randomBytes } from 'node:crypto'
import { open } from 'node:fs/promises'
import { Readable } from 'node:stream'
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { assertKey, assertPrefix, compareKeys } from './keys.js'
import type { ByteRange, FileInfo, Filesystem, Listing, ReadResult, WriteOptions } from './types.js'

/** How to reach an S3-compatible bucket (the settings' `s3` block minus `enabled`). */
export interface S3Config {
  bucket: string
  /** Empty means `us-east-1`. */
  region: string
  /** Empty means AWS itself; otherwise the server's base URL (`http://127.0.0.1:9000`). */
  endpoint: string
  accessKey: string
  secret: string
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need. */
  forcePathStyle: boolean
}

/** Size of one multipart part: at most `PART_SIZE * QUEUE_SIZE` bytes of an upload are in memory. */
const PART_SIZE = 8 * 1024 * 1024
const QUEUE_SIZE = 4

/** Builds an S3 client for a config, with the DeleteObjects Content-MD5 fix for Swift's s3api. */
export function createS3Client(config: S3Config): S3Client {
  const client = new S3Client({
    region: config.region.trim() || 'us-east-1',
    endpoint: config.endpoint.trim() || undefined,
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKey, secretAccessKey: config.secret },
    // NB: many S3-compatible servers reject the newer default CRC32 trailers on uploads.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 10_000 },
  })
  // Swift's s3api (and AWS's own older rule) demand Content-MD5 on DeleteObjects.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown }
      if (
        context.commandName === 'DeleteObjectsCommand' &&
        typeof request?.body === 'string' &&
        request.headers
      ) {
        request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64')
      }
      return next(args)
    },
    { step: 'build', name: 'svcbaseContentMd5' },
  )
  return client
}

/** Reads the fields S3 errors carry, without trusting their shape. */
function s3Error(err: unknown): { name: string; status: number | undefined } {
  if (typeof err !== 'object' || err === null) return { name: '', status: undefined }
  const e = err as { name?: unknown; Code?: unknown; $metadata?: { httpStatusCode?: unknown } }
  const status = e.$metadata?.httpStatusCode
  return {
    name: typeof e.name === 'string' ? e.name : typeof e.Code === 'string' ? e.Code : '',
    status: typeof status === 'number' ? status : undefined,
  }
}

const isNotFound = (err: unknown): boolean => {
  const { name, status } = s3Error(err)
  return name === 'NotFound' || name === 'NoSuchKey' || status === 404
}

/**
 * The S3 driver: streaming multipart uploads through lib-storage (so a large body never sits in
 * memory whole), ranged GETs, one-level listings with `/` as delimiter, batched deletes.
 */
export class S3Filesystem implements Filesystem {
  readonly kind = 's3' as const
  /** The underlying SDK client (for callers that need a presigned URL or similar). */
  readonly client: S3Client
  readonly bucket: string

  constructor(config: S3Config) {
    if (config.bucket.trim() === '') throw new Error('S3 is enabled but no bucket is configured')
    this.bucket = config.bucket.trim()
    this.client = createS3Client(config)
  }

  async write(key: string, body: Readable | Buffer, options: WriteOptions = {}): Promise<void> {
    assertKey(key)
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentType: options.contentType,
        ContentLength: options.size,
      },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    })
    try {
      await upload.done()
    } finally {
      // NB: lib-storage stops reading a failed body; release it so its source closes too.
      if (body instanceof Readable && !body.readableEnded) body.destroy()
    }
  }

  async writeFile(key: string, path: string, options: WriteOptions = {}): Promise<void> {
    assertKey(key)
    const handle = await open(path, 'r')
    const { size } = await handle.stat().catch(async (err: unknown) => {
      await handle.close()
      throw err
    })
    await this.write(key, handle.createReadStream(), { ...options, size })
  }

  async stat(key: string): Promise<FileInfo | null> {
    assertKey(key)
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }))
      return {
        key,
        size: res.ContentLength ?? 0,
        lastModified: res.LastModified ?? new Date(0),
        contentType: res.ContentType,
      }
    } catch (err) {
      if (isNotFound(err)) return null
      throw err
    }
  }

  async read(key: string, range?: ByteRange): Promise<ReadResult | null> {
    assertKey(key)
    if (range) {
      const { start, end } = range
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start)
        throw new RangeError(`invalid byte range ${start}-${end}`)
    }
    let res
    try {
      res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      )
    } catch (err) {
      if (isNotFound(err)) return null
      const { name, status } = s3Error(err)
      if (range && (name === 'InvalidRange' || status === 416))
        throw new RangeError(`byte range ${range.start}-${range.end} not satisfiable`)
      throw err
    }
    const stream = res.Body
    if (!(stream instanceof Readable)) throw new Error('S3 GetObject returned no readable body')
    const length = res.ContentLength ?? 0
    const info: FileInfo = {
      key,
      size: length,
      lastModified: res.LastModified ?? new Date(0),
      contentType: res.ContentType,
    }
    const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.ContentRange ?? '')
    if (!range || !m) return { stream, info }
    if (m[3] !== '*') info.size = Number(m[3])
    return { stream, info, range: { start: Number(m[1]), end: Number(m[2]) } }
  }

  async delete(key: string): Promise<boolean> {
    if ((await this.stat(key)) === null) return false
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }))
    return true
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertPrefix(prefix, false)
    let count = 0
    let token: string | undefined
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      )
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []))
      // A page holds at most 1000 keys: the DeleteObjects limit.
      if (keys.length > 0) {
        const res = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
          }),
        )
        const errors = res.Errors ?? []
        if (errors.length > 0) {
          const e = errors[0]!
          throw new Error(
            `S3 DeleteObjects failed for ${errors.length} key(s), first "${e.Key}": ${e.Code} ${e.Message}`,
          )
        }
        count += keys.length
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
    return count
  }

  async list(prefix: string): Promise<Listing> {
    assertPrefix(prefix)
    const folders: string[] = []
    const files: FileInfo[] = []
    let token: string | undefined
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix || undefined,
          Delimiter: '/',
          ContinuationToken: token,
        }),
      )
      for (const p of page.CommonPrefixes ?? []) if (p.Prefix) folders.push(p.Prefix)
      for (const o of page.Contents ?? []) {
        // Keys ending in `/` are folder markers made by other tools, not objects.
        if (!o.Key || o.Key.endsWith('/')) continue
        files.push({ key: o.Key, size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) })
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
    folders.sort(compareKeys)
    files.sort((a, b) => compareKeys(a.key, b.key))
    return { folders, files }
  }

  async close(): Promise<void> {
    this.client.destroy()
  }
}

/** Options of {@link probeS3}. */
export interface ProbeOptions {
  /** Gives up after this many milliseconds (default 15 s). */
  timeoutMs?: number
}

/**
 * Checks a config with a real round trip: puts a small random object under `.svcbase-probe/`,
 * reads it back and compares, then deletes it. Throws an Error saying what failed.
 */
export async function probeS3(config: S3Config, options: ProbeOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 15_000
  if (config.bucket.trim() === '') throw new Error('no bucket is configured')
  const client = createS3Client(config)
  const signal = AbortSignal.timeout(timeoutMs)
  const bucket = config.bucket.trim()
  const key = `.svcbase-probe/${randomBytes(12).toString('hex')}`
  const payload = randomBytes(32)
  let step = 'upload'
  const run = async (): Promise<void> => {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: payload }), {
      abortSignal: signal,
    })
    step = 'download'
    const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), {
      abortSignal: signal,
    })
    const body = res.Body ? Buffer.from(await res.Body.transformToByteArray()) : Buffer.alloc(0)
    if (!body.equals(payload)) throw new Error('the object read back differs from the one written')
    step = 'delete'
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }), {
      abortSignal: signal,
    })
  }
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer from the S3 endpoint within ${timeoutMs / 1000} s`)),
      timeoutMs,
    )
  })
  try {
    await Promise.race([run(), timeout])
  } catch (err) {
    throw new Error(`S3 probe failed at ${step}: ${describeS3Error(err)}`, { cause: err })
  } finally {
    clearTimeout(timer)
    client.destroy()
  }
}

/** A one-line description of an SDK error: its code, status and message. */
export function describeS3Error(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const { name, status } = s3Error(err)
  const parts: string[] = []
  if (name && name !== 'Error' && !err.message.startsWith(name)) parts.push(name)
  if (status !== undefined) parts.push(`(HTTP ${status})`)
  const head = parts.join(' ')
  // NB: the SDK says `UnknownError` when the server's error body has no message (RGW does so).
  const message =
    err.message && err.message !== name && err.message !== 'UnknownError' ? err.message : ''
  return [head, message].filter((s) => s !== '').join(': ') || 'unknown error'
}
