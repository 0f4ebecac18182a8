import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Multipart } from '@fastify/multipart'
import type { UploadedFile } from '../core/records/files.js'
import { ApiError, badRequest, messages, tooLarge } from '../core/errors.js'
import { createUploadDir, removeUploadDir } from '../core/temp-sweep.js'
import { jsonTextDepth } from '../tools/json-depth.js'

/** A parsed request body. */
export interface ParsedBody {
  values: Record<string, unknown>
  files: UploadedFile[]
}

/** Options of `readBody`. */
export interface ReadBodyOptions {
  /** The largest single uploaded file accepted, in bytes (a larger one answers 413). */
  maxFileSize?: number
}

/**
 * Infers a form value's type as PocketBase does (reference §0.5): `true`/`false` become
 * booleans and minimal number representations that a double holds exactly become numbers;
 * everything else stays text.
 */
export function inferFormValue(value: string): unknown {
  if (value === 'true') return true
  if (value === 'false') return false
  // Only numbers that survive the round trip: `12345678901234567890` stays text, digits intact.
  if (/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/.test(value) && String(Number(value)) === value)
    return Number(value)
  return value
}

/** Adds a form value; repeated keys become arrays. */
function addValue(target: Record<string, unknown>, key: string, value: unknown): void {
  if (!(key in target)) target[key] = value
  else if (Array.isArray(target[key])) (target[key] as unknown[]).push(value)
  else target[key] = [target[key], value]
}

/**
 * The deepest nesting of a JSON body (and of `@jsonPayload`): arrays and objects, the body itself
 * counting as 1. Checked on the text before parsing, so no recursive code ever sees deeper data;
 * it leaves room for a json field value at its own limit (64) inside a batch request.
 */
export const MAX_BODY_JSON_DEPTH = 128

/**
 * Parses JSON text from a client (a body, or `@jsonPayload` when `payload` is set): invalid JSON,
 * or JSON nested deeper than {@link MAX_BODY_JSON_DEPTH}, answers 400.
 */
export function parseJsonBody(text: string, payload = false): unknown {
  if (jsonTextDepth(text, MAX_BODY_JSON_DEPTH) > MAX_BODY_JSON_DEPTH) {
    const max = MAX_BODY_JSON_DEPTH
    throw badRequest(payload ? messages.payloadTooDeep({ max }) : messages.bodyTooDeep({ max }))
  }
  try {
    return JSON.parse(text)
  } catch (err) {
    const reason = (err as Error).message
    throw badRequest(
      payload ? messages.payloadInvalidJson({ reason }) : messages.bodyInvalidJson({ reason }),
    )
  }
}

/** Applies `@jsonPayload` values (JSON objects merged on top, in order). */
function applyJsonPayload(values: Record<string, unknown>): Record<string, unknown> {
  const payload = values['@jsonPayload']
  if (payload === undefined) return values
  const { ['@jsonPayload']: _drop, ...rest } = values
  for (const item of Array.isArray(payload) ? payload : [payload]) {
    const parsed = parseJsonBody(String(item), true)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw badRequest(messages.payloadNotObject)
    }
    Object.assign(rest, parsed)
  }
  return rest
}

/** Turns urlencoded text into inferred values. */
export function parseUrlEncoded(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of new URLSearchParams(text)) addValue(out, k, inferFormValue(v))
  return applyJsonPayload(out)
}

/**
 * Reads the body of a request: JSON and urlencoded bodies were parsed by the content-type
 * parsers; multipart bodies are read here, part by part, file parts spooled to an upload folder.
 * A multipart body that stops arriving for the body timeout, or whose client goes away, answers
 * 400 with nothing left open or on disk.
 */
export async function readBody(
  req: FastifyRequest,
  options: ReadBodyOptions = {},
): Promise<ParsedBody> {
  if (req.isMultipart()) {
    const boundary = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(
      String(req.headers['content-type']),
    )
    if (!boundary) {
      throw badRequest(messages.multipartNoBoundary)
    }
    const values: Record<string, unknown> = {}
    const files: UploadedFile[] = []
    const limits = { fileSize: options.maxFileSize ?? BODY_LIMIT, fields: 1000, parts: 1000 }
    const { bodyTimeout } = uploadOptions(req)
    const parts = req.parts({ limits })[Symbol.asyncIterator]()
    // Watched once the parser is attached, so they see the body from its first byte too.
    const closed = watchClosingDelimiter(req.raw, boundary[1] ?? boundary[2] ?? '')
    const guard = new BodyGuard(req, bodyTimeout)
    try {
      for (;;) {
        let next: IteratorResult<Multipart>
        try {
          next = await guard.race(parts.next())
        } catch (err) {
          throw malformedMultipart(err)
        }
        if (next.done) break
        const part = next.value
        if (part.type === 'file') {
          files.push(
            await spool(req, guard, part.fieldname, part.filename, part.mimetype, part.file),
          )
        } else {
          addValue(
            values,
            part.fieldname,
            part.fieldname === '@jsonPayload'
              ? String(part.value)
              : inferFormValue(String(part.value)),
          )
        }
      }
      // NB: @fastify/multipart ends the parts quietly on "Unexpected end of multipart data", so
      // a body cut short would be accepted with its last parts missing.
      if (!closed()) {
        throw badRequest(messages.multipartTruncated)
      }
      return { values: applyJsonPayload(values), files }
    } catch (err) {
      // Nothing of a body that failed stays on disk, whatever the route does next.
      await releaseUploads(req)
      throw guard.failure ?? err
    } finally {
      guard.stop()
    }
  }
  const body = req.body
  if (body === undefined || body === null || body === '') return { values: {}, files: [] }
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest(messages.bodyNotObject)
  }
  return { values: body as Record<string, unknown>, files: [] }
}

/**
 * Watches a multipart body while it is read: no byte for `timeout` ms (a stalled or silent
 * client), or the connection closing before the body ended, fails the reading with a 400
 * ({@link BodyGuard.failure}); the spooling in progress is aborted through {@link signal}.
 * After such a failure the connection is closed once the answer is sent: the rest of the body
 * will not be read.
 */
class BodyGuard {
  /** The 400 the reading failed with, or null. */
  failure: ApiError | null = null
  private readonly controller = new AbortController()
  readonly signal = this.controller.signal
  private readonly failed: Promise<never>
  private readonly timer: NodeJS.Timeout
  private readonly onData = () => this.timer.refresh()
  private readonly onClose = () => {
    if (!this.req.raw.complete) this.fail(badRequest(messages.multipartAborted))
  }

  constructor(
    private readonly req: FastifyRequest,
    timeout: number,
  ) {
    this.failed = new Promise<never>((_resolve, reject) => {
      this.signal.addEventListener('abort', () => reject(this.signal.reason as ApiError), {
        once: true,
      })
    })
    this.failed.catch(() => undefined) // NB: observed by `race` only while reading
    this.timer = setTimeout(() => {
      this.fail(badRequest(messages.multipartStalled({ seconds: timeout / 1000 })))
    }, timeout)
    req.raw.on('data', this.onData)
    req.raw.once('close', this.onClose)
  }

  /** `promise`, or this guard's failure if it comes first. */
  race<T>(promise: Promise<T>): Promise<T> {
    promise.catch(() => undefined) // NB: may settle after a failure, unobserved
    return Promise.race([promise, this.failed])
  }

  private fail(error: ApiError): void {
    if (this.failure) return
    this.failure = error
    this.req.svcDropConnection = true
    this.controller.abort(error)
  }

  stop(): void {
    clearTimeout(this.timer)
    this.req.raw.off('data', this.onData)
    this.req.raw.off('close', this.onClose)
  }
}

/**
 * Watches a multipart body for its closing delimiter (`--boundary--`); the returned function
 * tells whether it has been seen. Only a few bytes are kept between chunks.
 */
function watchClosingDelimiter(stream: Readable, boundary: string): () => boolean {
  const closing = Buffer.from(`--${boundary}--`)
  let seen = false
  let tail = Buffer.alloc(0)
  const onData = (chunk: Buffer): void => {
    if (
      chunk.includes(closing) ||
      Buffer.concat([tail, chunk.subarray(0, closing.length)]).includes(closing)
    ) {
      seen = true
      stream.off('data', onData)
      return
    }
    const last = chunk.length >= closing.length ? chunk : Buffer.concat([tail, chunk])
    tail = Buffer.from(last.subarray(Math.max(0, last.length - closing.length)))
  }
  stream.on('data', onData)
  return () => seen
}

/**
 * An error of the multipart parser: the limits keep their status (413) and server faults theirs;
 * anything else is the client's malformed body (no boundary, a prototype key as a name, …).
 */
function malformedMultipart(err: unknown): Error {
  if (err instanceof ApiError) return err
  const status = (err as { statusCode?: unknown }).statusCode
  if (typeof status === 'number' && (status === 413 || status >= 500)) return err as Error
  const reason = err instanceof Error ? err.message : String(err)
  return badRequest(messages.multipartMalformed({ reason }), {}, err)
}

/** The default per-request body limit (reference §0.6), also the default file size cap. */
export const BODY_LIMIT = 32 * 1024 * 1024

/**
 * The default body timeout: how long a multipart body may go without a single byte arriving
 * before the request answers 400 (ms).
 */
export const BODY_TIMEOUT = 10_000
/** The largest body timeout accepted (ms). */
export const MAX_BODY_TIMEOUT = 600_000

declare module 'fastify' {
  interface FastifyInstance {
    /** Where uploads are spooled and how long a multipart body may stall (`registerUploads`). */
    svcUploads: { dataDir: string; bodyTimeout: number } | null
  }
  interface FastifyRequest {
    /** The temp folder of this request's uploads, removed when the request ends. */
    svcUploadDir: string | null
    /** Set when the body was not read to its end: the connection closes after the answer. */
    svcDropConnection: boolean
  }
}

/** The upload options of the request's HTTP instance. */
function uploadOptions(req: FastifyRequest): { dataDir: string; bodyTimeout: number } {
  const options = req.server.svcUploads
  if (!options) throw new Error('multipart bodies need registerUploads on the HTTP instance')
  return options
}

/** Checks a body timeout option: an integer of milliseconds, 1 to {@link MAX_BODY_TIMEOUT}. */
export function checkBodyTimeout(value: unknown): number {
  if (value === undefined) return BODY_TIMEOUT
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > MAX_BODY_TIMEOUT
  )
    throw new RangeError(
      `bodyTimeout must be an integer of milliseconds from 1 to ${MAX_BODY_TIMEOUT}, got ${JSON.stringify(value)}`,
    )
  return value
}

/**
 * Sets up multipart uploads on an HTTP instance: file parts are spooled under
 * `<dataDir>/.svc_tmp/uploads/`, a body stalled for `bodyTimeout` ms answers 400, and each
 * request's upload folder is removed when its answer is sent or its connection closes.
 */
export function registerUploads(
  http: FastifyInstance,
  options: { dataDir: string; bodyTimeout?: number },
): void {
  http.decorate('svcUploads', {
    dataDir: options.dataDir,
    bodyTimeout: checkBodyTimeout(options.bodyTimeout),
  })
  http.decorateRequest('svcUploadDir', null)
  http.decorateRequest('svcDropConnection', false)
  http.addHook('onResponse', cleanUploads)
}

/**
 * Streams one uploaded part into a temp file (never into memory), counting its bytes. A part
 * over the size limit answers 413. The folder is removed after the response by `cleanUploads`,
 * or as soon as the connection closes (a client gone before its answer gets no response, so
 * `onResponse` never runs).
 */
async function spool(
  req: FastifyRequest,
  guard: BodyGuard,
  field: string,
  filename: string,
  mimetype: string,
  stream: Readable & { truncated?: boolean },
): Promise<UploadedFile> {
  if (!req.svcUploadDir) {
    const dir = await createUploadDir(uploadOptions(req).dataDir)
    req.svcUploadDir = dir
    const socket = req.raw.socket as { once?: unknown } | null
    if (typeof socket?.once === 'function') {
      const onClose = () => void releaseUploads(req)
      req.raw.socket.once('close', onClose)
      socketListeners.set(req, onClose)
    }
  }
  const path = join(
    req.svcUploadDir,
    `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
  )
  let size = 0
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length
  })
  // NB: an abort (stall, client gone) destroys both streams, so the file's descriptor closes.
  await pipeline(stream, createWriteStream(path), { signal: guard.signal })
  if (stream.truncated) throw tooLarge()
  return { field, filename, mimetype, size, path }
}

/** The socket `close` listeners of requests holding an upload folder. */
const socketListeners = new WeakMap<FastifyRequest, () => void>()

/** Removes a request's upload folder, if it has one, and stops watching its socket. */
async function releaseUploads(req: FastifyRequest): Promise<void> {
  const dir = req.svcUploadDir
  if (!dir) return
  req.svcUploadDir = null
  const onClose = socketListeners.get(req)
  if (onClose) {
    req.raw.socket.off('close', onClose)
    socketListeners.delete(req)
  }
  await removeUploadDir(dir).catch(() => undefined)
}

/**
 * Removes a request's upload folder, and closes the connection of a body left unread; registered
 * as an onResponse hook.
 */
export function cleanUploads(req: FastifyRequest, _reply: unknown, done: () => void): void {
  // NB: a callback hook: most requests upload nothing and should not pay for a promise.
  if (req.svcDropConnection) req.raw.socket?.destroySoon()
  if (!req.svcUploadDir) return done()
  releaseUploads(req).then(done, done)
}
