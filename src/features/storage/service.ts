import type { App } from '../../core/app.js'
import { badRequest, type FieldError, messages, validationError } from '../../core/errors.js'
import { required } from '../../core/fields/generic-errors.js'
import { formatDate } from '../../tools/dates.js'
import { InvalidKeyError, assertPrefix, keyProblem } from '../../tools/filesystem/index.js'

/** The longest object key accepted, in characters. */
export const MAX_KEY_LENGTH = 1024

/** The largest object the browser accepts in one upload (5 GiB, S3's single-PUT limit). */
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3

/**
 * `validation_match_invalid`: a key that is absolute, has `..`, `.` or empty segments, a
 * backslash or NUL, or ends in `/`.
 */
export const invalidKey = (): FieldError => validationError('validation_match_invalid')

/** Validates an object key from a client: the field error, or null when it is fine. */
export function validateObjectKey(key: unknown): FieldError | null {
  if (key === undefined || key === null || key === '') return required()
  if (typeof key !== 'string') return invalidKey()
  if ([...key].length > MAX_KEY_LENGTH || Buffer.byteLength(key) > MAX_KEY_LENGTH)
    return validationError('validation_length_too_long', { max: MAX_KEY_LENGTH })
  if (keyProblem(key) !== null) return invalidKey()
  return null
}

/** Runs a storage call, answering 400 when the driver refuses the key. */
export async function refuseBadKeys<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op()
  } catch (err) {
    if (err instanceof InvalidKeyError)
      throw badRequest(messages.validationFailed, {
        key: invalidKey(),
      })
    throw err
  }
}

/** The key, or 400 with its field error. */
export function keyOrThrow(key: string | undefined): string {
  const problem = validateObjectKey(key)
  if (problem) throw badRequest(messages.validationFailed, { key: problem })
  return key!
}

/** One level of the object browser. */
export interface ObjectListing {
  folders: string[]
  files: { key: string; size: number; lastModified: string }[]
}

/**
 * Lists one level under `prefix` in the app's storage: the folders, and the files with their
 * size and modification date. 400 for a malformed prefix.
 */
export async function listObjects(app: App, prefix: string): Promise<ObjectListing> {
  try {
    assertPrefix(prefix)
  } catch (err) {
    if (!(err instanceof InvalidKeyError)) throw err
    throw badRequest(messages.validationFailed, {
      prefix: invalidKey(),
    })
  }
  const listing = await app.storage.list(prefix)
  return {
    folders: listing.folders,
    files: listing.files.map((f) => ({
      key: f.key,
      size: f.size,
      lastModified: formatDate(f.lastModified),
    })),
  }
}
