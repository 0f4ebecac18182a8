import { open } from 'node:fs/promises'
import { extname } from 'node:path'
import { mime } from '../../tools/mime.js'
import { randomString, ID_ALPHABET } from '../../tools/ids.js'
import type { App } from '../app.js'
import type { Collection, Field } from '../collections/model.js'
import { validationError, type ValidationErrors } from '../errors.js'
import { fileMaxSize } from '../fields/file.js'
import { listTypeError } from '../fields/list-values.js'
import { getFieldType } from '../fields/registry.js'
import type { RecordData } from '../request-info.js'
import type { UploadedFile } from './api.js'
import { parseKey } from './input.js'

export type { UploadedFile }

/** An upload checked and named, ready to store and assign. */
export interface PreparedUpload {
  field: Field
  modifier: 'set' | 'append' | 'prepend'
  name: string
  contentType: string
  file: UploadedFile
}

/** The storage key of a record's file. */
export function fileKey(c: Collection, recordId: string, name: string): string {
  return `${c.id}/${recordId}/${name}`
}

/** The storage key of a generated thumbnail. */
export function thumbKey(c: Collection, recordId: string, name: string, size: string): string {
  return `${c.id}/${recordId}/thumbs_${name}/${size}_${name}`
}

/** The folder of every file of one record (thumbnails included). */
export function recordPrefix(c: Collection, recordId: string): string {
  return `${c.id}/${recordId}/`
}

const snake = (s: string): string =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^\w]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '')
    .toLowerCase()

/**
 * The stored name of an upload (reference §5.4): the snake_cased original name (≤100 chars,
 * padded with random characters when under 3), `_`, 10 random `[a-z0-9]`, and the cleaned
 * extension in its own case, as PocketBase keeps it (sniffed when the name has none).
 */
export function storedName(original: string, sniffedExt?: string): string {
  const rawExt = extname(original)
  let ext = rawExt.replace(/[^\w.*\-+=#]/g, '').slice(0, 20)
  if (ext === '' || ext === '.') ext = sniffedExt ? `.${sniffedExt}` : ''
  let base = snake(original.slice(0, original.length - rawExt.length)).slice(0, 100)
  if (base.length < 3) base += randomString(10, ID_ALPHABET)
  return `${base}_${randomString(10, ID_ALPHABET)}${ext}`
}

/** The content type of a stored file: sniffed bytes, else the extension, else octet-stream. */
export async function detectType(
  path: string,
  filename: string,
): Promise<{ type: string; ext?: string }> {
  // NB: loaded on the first upload; the module is large and most requests carry no files.
  const { fileTypeFromFile } = await import('file-type')
  const sniffed = await fileTypeFromFile(path).catch(() => undefined)
  if (sniffed) return { type: sniffed.mime, ext: sniffed.ext }
  const byName = mime().lookup(filename) || ''
  if (await looksLikeText(path)) {
    // NB: text content may claim a text-based type by its name (svg, json, csv…) but never a
    // binary one, so "plain text named x.png" is not an image.
    if (TEXTUAL.test(byName)) return { type: byName }
    // As PocketBase (mimetype's extension), a name without one gets `.txt`, so that plain text
    // is served as such by name too (local storage keeps no content type).
    return { type: 'text/plain', ext: 'txt' }
  }
  return { type: byName || 'application/octet-stream' }
}

const TEXTUAL =
  /^(text\/|application\/(json|xml|javascript|x-javascript|ld\+json|x-yaml|yaml)|image\/svg\+xml)/

/** True when the first 8 KiB hold no NUL byte and decode as UTF-8. */
async function looksLikeText(path: string): Promise<boolean> {
  const handle = await open(path, 'r')
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8192), 0, 8192, 0)
    const head = buffer.subarray(0, bytesRead)
    if (head.includes(0)) return false
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, trimPartial(head)))
      return true
    } catch {
      return false
    }
  } finally {
    await handle.close()
  }
}

/** The length of `buf` without a trailing, cut-off UTF-8 sequence. */
function trimPartial(buf: Buffer): number {
  let i = buf.length - 1
  let back = 0
  while (i >= 0 && back < 3 && (buf[i]! & 0xc0) === 0x80) {
    i--
    back++
  }
  if (i < 0) return buf.length
  const lead = buf[i]!
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  return need > back + 1 ? i : buf.length
}

/**
 * Names and checks the uploads of a request against their fields (`maxSize`, `mimeTypes`);
 * parts for unknown or non-file keys are ignored. Runs before any transaction.
 */
export async function prepareUploads(
  c: Collection,
  files: readonly UploadedFile[],
): Promise<{ uploads: PreparedUpload[]; errors: ValidationErrors }> {
  const uploads: PreparedUpload[] = []
  const errors: ValidationErrors = {}
  for (const file of files) {
    const { name, modifier } = parseKey(file.field)
    const field = c.fields.find((f) => f.name === name && f.type === 'file')
    if (!field || modifier === 'remove' || modifier === 'autogenerate') continue
    const max = fileMaxSize(field)
    if (file.size > max) {
      errors[field.name] = validationError('validation_file_size_limit', {
        file: file.filename,
        maxSize: max,
      })
      continue
    }
    const { type, ext } = await detectType(file.path, file.filename)
    const allowed = Array.isArray(field.options.mimeTypes)
      ? (field.options.mimeTypes as string[])
      : []
    if (allowed.length > 0 && !allowed.includes(type)) {
      errors[field.name] = validationError('validation_invalid_mime_type:file', {
        file: file.filename,
        types: allowed,
      })
      continue
    }
    // NB: a long name is cut when stored (`storedName`), as PocketBase does, not refused.
    if (file.filename.length === 0) {
      errors[field.name] = validationError('validation_invalid_file:name', { file: file.filename })
      continue
    }
    uploads.push({
      field,
      modifier,
      name: file.storedName ?? storedName(file.filename, ext),
      contentType: type,
      file,
    })
  }
  return { uploads, errors }
}

/** Writes prepared uploads to storage (before the transaction; undone by `discardUploads`). */
export async function storeUploads(
  app: App,
  c: Collection,
  recordId: string,
  uploads: readonly PreparedUpload[],
): Promise<void> {
  for (const u of uploads) {
    await app.storage.writeFile(fileKey(c, recordId, u.name), u.file.path, {
      contentType: u.contentType,
      size: u.file.size,
    })
  }
}

/** Removes stored uploads of a write that failed. */
export async function discardUploads(
  app: App,
  c: Collection,
  recordId: string,
  uploads: readonly PreparedUpload[],
): Promise<void> {
  for (const u of uploads) {
    await app.storage
      .delete(fileKey(c, recordId, u.name))
      .catch((err: unknown) =>
        app.logger.error('failed to remove an orphaned upload', { error: String(err) }),
      )
  }
}

const asList = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? [v] : []

/**
 * Puts the uploads into the record's file fields: a plain key replaces the list (keeping names
 * the body also listed), `+` appends, a leading `+` prepends. Then every name must be an upload
 * or a file the record already had (`validation_invalid_file`).
 */
export function assignUploads(
  c: Collection,
  record: RecordData,
  uploads: readonly PreparedUpload[],
  body: Record<string, unknown>,
  original: RecordData | undefined,
): ValidationErrors {
  const errors: ValidationErrors = {}
  for (const field of c.fields) {
    if (field.type !== 'file') continue
    // A value of the wrong type (`{}`) is kept as sent, for validation to report it.
    if (listTypeError(record[field.name], field)) continue
    const ft = getFieldType('file')!
    const mine = uploads.filter((u) => u.field.id === field.id)
    const set = mine.filter((u) => u.modifier === 'set').map((u) => u.name)
    let names = asList(record[field.name])
    if (set.length > 0) names = field.name in body ? [...asList(record[field.name]), ...set] : set
    names = [
      ...mine.filter((u) => u.modifier === 'prepend').map((u) => u.name),
      ...names,
      ...mine.filter((u) => u.modifier === 'append').map((u) => u.name),
    ]
    record[field.name] = ft.isMulti(field) ? names : (names.at(-1) ?? '')
    const known = new Set([...asList(original?.[field.name]), ...mine.map((u) => u.name)])
    const invalid = asList(record[field.name]).filter((n) => !known.has(n))
    if (invalid.length > 0) {
      errors[field.name] = validationError('validation_invalid_file', { invalidFiles: invalid })
    }
  }
  return errors
}

/** The file names a record holds across its file fields. */
export function fileNames(c: Collection, record: RecordData): string[] {
  return c.fields.filter((f) => f.type === 'file').flatMap((f) => asList(record[f.name]))
}

/** Deletes files (and their thumbnails) no longer referenced; runs after commit. */
export async function deleteFiles(
  app: App,
  c: Collection,
  recordId: string,
  names: readonly string[],
): Promise<void> {
  for (const name of names) {
    try {
      await app.storage.delete(fileKey(c, recordId, name))
      await app.storage.deletePrefix(`${recordPrefix(c, recordId)}thumbs_${name}/`)
    } catch (err) {
      app.logger.error('failed to delete a replaced file', {
        key: fileKey(c, recordId, name),
        error: String(err),
      })
    }
  }
}

/** Deletes a whole prefix after commit, logging failures. */
export async function deletePrefixLater(app: App, prefix: string): Promise<void> {
  try {
    await app.storage.deletePrefix(prefix)
  } catch (err) {
    app.logger.error('failed to delete files', { prefix, error: String(err) })
  }
}
