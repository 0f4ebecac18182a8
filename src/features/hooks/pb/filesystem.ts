/**
 * PocketBase's `$filesystem` for `*.pb.js` files, the part svcbase offers: `fileFromBytes(data,
 * name)`, `fileFromPath(path)` (a file of the app's folders only, as `$os.readFile`, see
 * `app-files.ts`), `fileFromURL(url, secTimeout)` (by replay, as `$http.send`) and
 * `fileFromMultipart(header)` (an upload of the request, `e.request.formFile(key)`). A file is PocketBase's `{name, originalName, size, reader}`: `name` is the
 * name it is stored under (PocketBase's form, made now), `reader.open()` a reader a
 * `MailerMessage`'s `attachments` take. `record.set(field, file)` and `$app.save(record)` store
 * it in the record's file field (`uploadsOf`), through the record service as an upload is.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, posix } from 'node:path'
import type { App } from '../../../core/app.js'
import type { UploadedFile } from '../../../core/records/api.js'
import { storedName } from '../../../core/records/files.js'
import { messages } from '../../../core/errors.js'
import { appPath } from './app-files.js'
import {
  guardOf,
  MAX_TIMEOUT_S,
  performSend,
  sendKey,
  type SendAnswer,
  type SendConfig,
} from './http-send.js'
import { awaitOnce, currentApp } from './invocation.js'
import { GoError } from './migrate/go-error.js'
import { strict } from './unsupported.js'

/** The longest file a script may make from bytes or a path (bytes). */
const MAX_FILE = 32 * 1024 * 1024

/** Where a script's file takes its content from. */
type Source = { bytes: Buffer } | { path: string }

interface FileInfo {
  source: Source
  name: string
  originalName: string
  size: number
}

/** The files `$filesystem` made, by their script object. */
const files = new WeakMap<object, FileInfo>()
/** The readers `file.reader.open()` gave, by their script object. */
const readers = new WeakMap<object, FileInfo>()

/** The content of a file's source. */
async function contentOf(info: FileInfo): Promise<Buffer> {
  if ('bytes' in info.source) return info.source.bytes
  return readFile(info.source.path)
}

/** The reading of a reader `file.reader.open()` gave, or undefined for another value. */
export function readerContent(v: unknown): (() => Promise<Buffer>) | undefined {
  const info = typeof v === 'object' && v !== null ? readers.get(v) : undefined
  return info ? () => contentOf(info) : undefined
}

/** The script object of a file. */
function fileObject(info: FileInfo): object {
  const file = {
    name: info.name,
    originalName: info.originalName,
    size: info.size,
    reader: strict('file.reader', {
      open: (): object => {
        const r = strict('file.reader.open()', { close: (): void => undefined })
        readers.set(r, info)
        return r
      },
    }),
  }
  files.set(file, info)
  return file
}

function make(source: Source, originalName: string, size: number, what: string): object {
  if (size > MAX_FILE)
    throw new Error(`${what}: "${originalName}" is larger than ${MAX_FILE} bytes`)
  return fileObject({ source, originalName, size, name: storedName(originalName) })
}

/** Bytes given as text or as PocketBase's byte array. */
function bytesOf(data: unknown, name: string): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8')
  if (Array.isArray(data) && data.every((n) => typeof n === 'number'))
    return Buffer.from(data.map((n) => n & 0xff))
  throw new Error(messages.pbBadArgument({ name, expected: 'text or a byte array' }))
}

/**
 * PocketBase's `fileFromURL(url, secTimeout = 120)`: a GET made as `$http.send` makes it (by
 * replay, through the SSRF guard); an answer outside 200-399 throws PocketBase's error.
 */
function fileFromURL(fallback: App, url: unknown, secTimeout: unknown): object {
  const what = '$filesystem.fileFromURL'
  const u = typeof url === 'string' ? url : ''
  const timeoutS =
    typeof secTimeout === 'number' && secTimeout > 0
      ? Math.min(secTimeout, MAX_TIMEOUT_S)
      : MAX_TIMEOUT_S
  const c: SendConfig = { url: u, method: 'GET', headers: [], body: null, timeoutS }
  const app = currentApp() ?? fallback
  const answer = awaitOnce(what, sendKey(c), () => performSend(c, guardOf(app))) as SendAnswer
  if (answer.statusCode < 200 || answer.statusCode > 399)
    throw new GoError(`failed to download url ${u} (${answer.statusCode})`)
  return make({ bytes: answer.body }, posix.basename(u), answer.body.length, what)
}

/** PocketBase's file of an upload of the request (`e.findUploadedFiles`, `fileFromMultipart`). */
export function fileFromUpload(u: UploadedFile): object {
  return make({ path: u.path }, u.filename, u.size, 'an uploaded file')
}

/** The uploads `e.request.formFile(key)` gave their file headers for. */
const headers = new WeakMap<object, UploadedFile>()

/** Go's `multipart.FileHeader` of an upload: `filename`, `size`, `header.get(name)`. */
export function fileHeaderOf(u: UploadedFile): object {
  const h = strict('multipart.FileHeader', {
    filename: u.filename,
    size: u.size,
    header: strict('multipart.FileHeader.header', {
      get: (name: unknown): string =>
        String(name).toLowerCase() === 'content-type' ? u.mimetype : '',
    }),
  })
  headers.set(h, u)
  return h
}

/** Go's `multipart.File` of an upload: a reader (`e.stream` takes it), `close()`. */
export function multipartFileOf(u: UploadedFile): object {
  const info: FileInfo = { source: { path: u.path }, name: '', originalName: u.filename, size: 0 }
  const r = strict('multipart.File', { close: (): void => undefined })
  readers.set(r, info)
  return r
}

/** The `$filesystem` object of a script whose hooks dir is `hooksDir`. */
export function filesystemGlobal(hooksDir: string, app: App): object {
  return strict('$filesystem', {
    fileFromURL: (url: unknown, secTimeout?: unknown): object => fileFromURL(app, url, secTimeout),
    fileFromBytes: (data: unknown, name: unknown): object => {
      const what = '$filesystem.fileFromBytes'
      if (typeof name !== 'string' || name === '')
        throw new Error(messages.pbBadArgument({ name: what, expected: 'a file name' }))
      const bytes = bytesOf(data, what)
      return make({ bytes }, name, bytes.length, what)
    },
    fileFromMultipart: (header: unknown): object => {
      const u = typeof header === 'object' && header !== null ? headers.get(header) : undefined
      if (!u)
        throw new Error(
          messages.pbBadArgument({
            name: '$filesystem.fileFromMultipart',
            expected: 'a file header of e.request.formFile(key)',
          }),
        )
      return fileFromUpload(u)
    },
    fileFromPath: (p: unknown): object => {
      const what = '$filesystem.fileFromPath'
      const path = appPath(hooksDir, p, what)
      const info = statSync(path)
      if (!info.isFile()) throw new Error(`${what}: "${String(p)}" is not a file`)
      return make({ path }, basename(path), info.size, what)
    },
  })
}

/** True for a file `$filesystem` made. */
const isFile = (v: unknown): v is object => typeof v === 'object' && v !== null && files.has(v)

/**
 * A save's body split into its values and its files: a field set to a file (or to a list
 * holding files) becomes uploads of that field; names in the list stay as values, the files
 * then appended (`field+`). `prepare` writes bytes to temp files for the record service and
 * gives a `cleanup` to run after the save.
 */
export function uploadsOf(body: Record<string, unknown>): {
  body: Record<string, unknown>
  prepare: () => Promise<{ files: UploadedFile[]; cleanup: () => Promise<void> }>
} {
  const out: Record<string, unknown> = {}
  const pending: { field: string; info: FileInfo }[] = []
  for (const [key, value] of Object.entries(body)) {
    if (isFile(value)) {
      pending.push({ field: key, info: files.get(value) as FileInfo })
      continue
    }
    if (Array.isArray(value) && value.some(isFile)) {
      const names = value.filter((v) => !isFile(v))
      const field = names.length > 0 ? `${key}+` : key
      if (names.length > 0) out[key] = names
      for (const v of value.filter(isFile)) pending.push({ field, info: files.get(v) as FileInfo })
      continue
    }
    out[key] = value
  }
  const prepare = async () => {
    if (pending.length === 0) return { files: [], cleanup: () => Promise.resolve() }
    const dir = await mkdtemp(join(tmpdir(), 'svcbase-pbfile-'))
    const cleanup = () => rm(dir, { recursive: true, force: true })
    try {
      const uploads: UploadedFile[] = []
      for (const [i, { field, info }] of pending.entries()) {
        let path: string
        if ('path' in info.source) path = info.source.path
        else {
          path = join(dir, String(i))
          await writeFile(path, info.source.bytes)
        }
        uploads.push({
          field,
          filename: info.originalName,
          mimetype: 'application/octet-stream',
          size: info.size,
          path,
          storedName: info.name,
        })
      }
      return { files: uploads, cleanup }
    } catch (err) {
      await cleanup()
      throw err
    }
  }
  return { body: out, prepare }
}
