import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { Transform, type Readable, type TransformCallback } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { MultipartFile } from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../../core/app.js'
import { createUploadDir, removeUploadDir } from '../../../core/temp-sweep.js'
import {
  badRequest,
  hasErrors,
  messages,
  tooLarge,
  type ValidationErrors,
} from '../../../core/errors.js'
import { required } from '../../../core/fields/generic-errors.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { InvalidKeyError } from '../../../tools/filesystem/index.js'
import { invalidKey, MAX_UPLOAD_BYTES, refuseBadKeys, validateObjectKey } from '../service.js'

/** Fails the stream with 413 once more than `max` bytes went through. */
function byteLimit(max: number): Transform {
  let seen = 0
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      seen += chunk.length
      if (seen > max) done(tooLarge())
      else done(null, chunk)
    },
  })
}

/** Consumes a stream to its end, discarding it. */
async function drain(stream: Readable): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return
  await new Promise<void>((resolve) => {
    stream.once('end', resolve)
    stream.once('close', resolve)
    stream.once('error', () => resolve())
    stream.resume()
  })
}

/** A file part spooled to disk because it came before the key. */
interface Spool {
  /** Its upload folder under the data dir (swept at start after a crash). */
  dir: string
  path: string
  contentType: string
}

/**
 * Takes the `file` part: streamed straight into storage when the key is already known and
 * valid, drained when the key is bad, spooled to a temporary file when no key came yet.
 * Returns what happened.
 */
async function takeFile(
  app: App,
  key: string | undefined,
  part: MultipartFile,
): Promise<'written' | 'refused' | Spool> {
  if (key === undefined) {
    const dir = await createUploadDir(app.config.dataDir)
    const spool = { dir, path: join(dir, 'file'), contentType: part.mimetype }
    try {
      await pipeline(part.file, byteLimit(MAX_UPLOAD_BYTES), createWriteStream(spool.path))
    } catch (err) {
      await removeUploadDir(dir)
      throw err
    }
    return spool
  }
  if (validateObjectKey(key) !== null) {
    await drain(part.file)
    return 'refused'
  }
  const limited = part.file.pipe(byteLimit(MAX_UPLOAD_BYTES))
  part.file.once('error', (err) => limited.destroy(err))
  try {
    await app.storage.write(key, limited, { contentType: part.mimetype })
    return 'written'
  } catch (err) {
    if (!(err instanceof InvalidKeyError)) throw err
    // A key this driver cannot store (a local name over 255 bytes): drop the body.
    part.file.unpipe(limited)
    await drain(part.file)
    return 'refused'
  }
}

/**
 * `POST /api/storage/objects`: reads the multipart parts in order and streams the `file` part
 * straight into storage. NB: send `key` before `file`; when the file comes first it is spooled
 * to a temporary file in an upload folder under the data dir until the key is known.
 */
export async function upload(app: App, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  requireSuperuser(requestInfo(req))
  if (!req.isMultipart()) throw badRequest(messages.multipartExpected)
  let key: string | undefined
  let file: 'written' | 'refused' | Spool | undefined
  try {
    // NB: busboy's own size limit truncates silently; byteLimit() fails the write instead.
    for await (const part of req.parts({ limits: { fileSize: Infinity } })) {
      if (part.type === 'field') {
        if (part.fieldname === 'key' && key === undefined) key = String(part.value)
      } else if (part.fieldname !== 'file' || file !== undefined) await drain(part.file)
      else file = await takeFile(app, key, part)
    }
    const errors: ValidationErrors = {}
    const keyError = validateObjectKey(key) ?? (file === 'refused' ? invalidKey() : null)
    if (keyError) errors.key = keyError
    if (file === undefined) errors.file = required()
    if (hasErrors(errors)) throw badRequest(messages.validationFailed, errors)
    const spool = file
    if (typeof spool === 'object')
      await refuseBadKeys(() =>
        app.storage.writeFile(key!, spool.path, { contentType: spool.contentType }),
      )
  } finally {
    if (typeof file === 'object') await removeUploadDir(file.dir)
  }
  await reply.code(204).send()
}

/** `POST /api/storage/objects` (superuser): see {@link upload}. */
export function registerUpload(app: App, http: FastifyInstance): void {
  http.post('/api/storage/objects', (req, reply) => upload(app, req, reply))
}
