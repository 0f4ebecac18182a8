/**
 * The members of PocketBase's `router.Event` a script route or middleware has beyond the answer
 * writers of `events.ts`: `e.bindBody(dst)`, `e.findUploadedFiles(key)`, `e.request.formFile(key)`,
 * `e.isTLS()`, `e.setCookie(cookie)`, `e.status()`, `e.written()`, `e.xml(status, data)`,
 * `e.flush()`, `e.stream(status, contentType, reader)` and `e.fileFS(fsys, filename)`.
 */
import { realpathSync, statSync } from 'node:fs'
import { isAbsolute, join, posix, relative } from 'node:path'
import { messages } from '../../../core/errors.js'
import { mime } from '../../../tools/mime.js'
import type { ScriptRouteEvent } from '../route-event.js'
import { apiErrorOf } from './errors.js'
import { fileFromUpload, fileHeaderOf, multipartFileOf, readerContent } from './filesystem.js'
import { cookieOf, setCookieLine } from './http-cookie.js'
import { awaitOnce, enqueue } from './invocation.js'
import { GoError } from './migrate/go-error.js'
import { dirOfFS } from './os.js'

type Json = Record<string, unknown>

const MULTIPART = 'multipart/form-data'

/** The uploads of `key` in a multipart request; Go's errors otherwise. */
function uploadsOf(e: ScriptRouteEvent, key: unknown) {
  if (e.requestType !== MULTIPART)
    throw new GoError("request Content-Type isn't multipart/form-data")
  const found = e.files.filter((f) => f.field === String(key))
  if (found.length === 0) throw new GoError('http: no such file')
  return found
}

/** The shape of a `new DynamicModel({...})` (its keys and their typed defaults), or undefined. */
function shapeOf(v: object): Json | undefined {
  const key = Object.getOwnPropertySymbols(v).find(
    (s) => s.description === 'svcbase.dynamicModelShape',
  )
  return key ? ((v as Record<symbol, Json>)[key] ?? undefined) : undefined
}

/** Go's JSON name of a value's kind, for an unmarshal error. */
const jsonKind = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'object'
        ? 'object'
        : typeof v === 'boolean'
          ? 'boolean'
          : typeof v

/** The Go type a DynamicModel's default stands for. */
const goType = (like: unknown): string =>
  typeof like === 'string'
    ? 'string'
    : typeof like === 'number'
      ? Number.isInteger(like)
        ? 'int64'
        : 'float64'
      : typeof like === 'boolean'
        ? 'bool'
        : Array.isArray(like)
          ? '[]interface {}'
          : 'map[string]interface {}'

/** A JSON body's value for a key of the shape, or Go's unmarshal error. */
function jsonValue(key: string, v: unknown, like: unknown): unknown {
  const fits =
    v === null ||
    like === null ||
    (typeof like === 'string' && typeof v === 'string') ||
    (typeof like === 'number' && typeof v === 'number') ||
    (typeof like === 'boolean' && typeof v === 'boolean') ||
    (Array.isArray(like) && Array.isArray(v)) ||
    (typeof like === 'object' && !Array.isArray(like) && typeof v === 'object' && !Array.isArray(v))
  if (!fits)
    throw new GoError(
      `json: cannot unmarshal JSON ${jsonKind(v)} into Go ${goType(like)} within "/${key}"`,
    )
  if (typeof like === 'number' && Number.isInteger(like) && !Number.isInteger(v))
    throw new GoError(
      `json: cannot unmarshal JSON number ${String(v)} into Go int64 within "/${key}"`,
    )
  return v === null ? like : v
}

/** A form value (text) for a key of the shape, converted as PocketBase's form binding does. */
function formValue(key: string, v: unknown, like: unknown): unknown {
  const text = Array.isArray(v) ? String(v[0] ?? '') : String(v)
  if (typeof like === 'string') return text
  if (typeof like === 'boolean') return text === 'true' || text === '1' || text === 'on'
  if (typeof like === 'number') {
    const n = Number(text)
    if (text.trim() === '' || !Number.isFinite(n))
      throw new GoError(`invalid value "${text}" for the number field "${key}"`)
    return n
  }
  return v
}

/** `e.bindBody(dst)`: the body's values for the keys of a DynamicModel, typed by its defaults. */
function bindBody(e: ScriptRouteEvent, dst: unknown): void {
  // as Go's: an empty body binds nothing
  if (['', '0'].includes(e.request.header('content-length'))) return
  const json = e.requestType === 'application/json' || e.requestType === ''
  const form = e.requestType === MULTIPART || e.requestType === 'application/x-www-form-urlencoded'
  if (!json && !form) throw new GoError(messages.unsupportedContentType)
  const shape = typeof dst === 'object' && dst !== null ? shapeOf(dst) : undefined
  if (!shape)
    throw new GoError(
      json
        ? 'json: cannot unmarshal into Go map[string]interface {}: value must be passed as a non-nil pointer reference'
        : 'dst must be a pointer',
    )
  const body = e.requestInfo.body
  const out: Json = {}
  for (const [k, like] of Object.entries(shape))
    if (Object.hasOwn(body, k))
      out[k] = json ? jsonValue(k, body[k], like) : formValue(k, body[k], like)
  Object.assign(dst as Json, out)
}

/** Go's `xml.EscapeText`. */
const xmlEscape = (s: string): string =>
  s.replace(
    /[&<>"'\t\n\r]/g,
    (c) =>
      ({
        '&': '&amp;',
        '<': '&lt;',
        '>': '&gt;',
        '"': '&#34;',
        "'": '&#39;',
        '\t': '&#x9;',
        '\n': '&#xA;',
        '\r': '&#xD;',
      })[c] ?? c,
  )

/** Go's `xml.Marshal` of a script value (a string, number or bool; null is nothing). */
function xmlOf(data: unknown): string {
  if (data === null || data === undefined) return ''
  if (typeof data === 'string') return `<string>${xmlEscape(data)}</string>`
  if (typeof data === 'boolean') return `<bool>${data}</bool>`
  if (typeof data === 'number') {
    const tag = Number.isInteger(data) ? 'int64' : 'float64'
    return `<${tag}>${String(data)}</${tag}>`
  }
  throw new GoError(
    `xml: unsupported type: ${Array.isArray(data) ? '[]interface {}' : 'map[string]interface {}'}`,
  )
}

/** True when the real path of `path` is inside the real folder `root`. */
function within(root: string, path: string): boolean {
  try {
    const rel = relative(realpathSync(root), realpathSync(path))
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
  } catch {
    return false
  }
}

/** `e.fileFS(fsys, filename)`: a file of an `$os.dirFS` folder, 404 when it has none. */
function fileFS(e: ScriptRouteEvent, fsys: unknown, filename: unknown): void {
  const root = dirOfFS(fsys)
  if (root === undefined)
    throw new Error(messages.pbBadArgument({ name: 'e.fileFS', expected: 'an $os.dirFS(path)' }))
  const name = typeof filename === 'string' ? filename : ''
  const valid =
    name !== '' &&
    !name.startsWith('/') &&
    name.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
  let path = valid ? join(root, name) : ''
  const stat = (p: string) => {
    try {
      return statSync(p)
    } catch {
      return null
    }
  }
  let info = path === '' || root === '' ? null : stat(path)
  if (info?.isDirectory()) info = stat((path = join(path, 'index.html')))
  // a link leading out of the folder is not followed (as $os.readFile keeps to the app's folders)
  if (!info?.isFile() || !within(root, path)) throw apiErrorOf(404, messages.fileNotFound, null)
  e.file(path, mime().contentType(posix.extname(path)) || 'application/octet-stream')
}

/** The members of a script route's event `e` (the event built by `route-event.ts`). */
export function routeMembers(e: ScriptRouteEvent): Json {
  let streams = 0
  return {
    bindBody: (dst: unknown): void => bindBody(e, dst),
    findUploadedFiles: (key: unknown): object[] => uploadsOf(e, key).map(fileFromUpload),
    isTLS: (): boolean => e.tls,
    setCookie: (cookie: unknown): void => {
      if (cookie === null || cookie === undefined) return
      if (typeof cookie !== 'object')
        throw new Error(messages.pbBadArgument({ name: 'e.setCookie', expected: 'a Cookie' }))
      const line = setCookieLine(cookieOf(cookie))
      if (line !== null) enqueue('e.setCookie', () => Promise.resolve(void e.cookies.push(line)))
    },
    status: (): number => e.response?.status ?? 0,
    written: (): boolean => e.response !== null,
    xml: (status: number, data: unknown): void => {
      const body = `<?xml version="1.0" encoding="UTF-8"?>\n${xmlOf(data)}`
      e.blob(status, 'application/xml; charset=utf-8', body)
    },
    // svcbase sends the answer when the handler ends; there is nothing to flush before then
    flush: (): void => undefined,
    stream: (status: number, contentType: unknown, reader: unknown): void => {
      const read = readerContent(reader)
      if (!read)
        throw new Error(
          messages.pbBadArgument({
            name: 'e.stream',
            expected: 'a reader (file.reader.open(), or the file of e.request.formFile(key))',
          }),
        )
      const bytes = awaitOnce('e.stream', `e.stream:${streams++}`, read) as Buffer
      e.string(status, '')
      e.bytes = bytes
      e.contentType = String(contentType)
    },
    fileFS: (fsys: unknown, filename: unknown): void => fileFS(e, fsys, filename),
  }
}

/** `e.request.formFile(key)`: `[file, header]` of the first upload of `key`. */
export function formFile(e: ScriptRouteEvent, key: unknown): [object, object] {
  const u = uploadsOf(e, key)[0]!
  return [multipartFileOf(u), fileHeaderOf(u)]
}
