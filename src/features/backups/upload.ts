/** The checks of `POST /api/backups/upload`, answered as PocketBase answers them (`data.file`). */
import { open } from 'node:fs/promises'
import { badRequest, messages, validationError, type ApiError } from '../../core/errors.js'
import type { ArchiveError } from './archive.js'
import { isValidName } from './names.js'

/** An uploaded file as the body reader spooled it. */
export interface UploadedFile {
  path: string
  filename: string
  size: number
}

/** True when the file starts as a ZIP archive does (a local file header, or an empty archive). */
async function looksLikeZip(path: string): Promise<boolean> {
  const handle = await open(path, 'r')
  try {
    const head = Buffer.alloc(4)
    const { bytesRead } = await handle.read(head, 0, 4, 0)
    const sig = head.subarray(0, bytesRead).toString('latin1')
    return sig === 'PK\x03\x04' || sig === 'PK\x05\x06'
  } finally {
    await handle.close()
  }
}

/**
 * PocketBase's checks, in its order: a file in the field `file` (`validation_required`), a ZIP by
 * its content (`validation_invalid_mime_type`), a name of its own (`validation_backup_name_exists`);
 * and svcbase's rule for the name (`validation_match_invalid`: PocketBase renames instead).
 * Resolves to the file.
 */
export async function checkUpload(
  file: UploadedFile | undefined,
  exists: (name: string) => Promise<boolean>,
): Promise<UploadedFile> {
  const refuse = (error: ReturnType<typeof validationError>): ApiError =>
    badRequest(messages.validationFailed, { file: error })
  if (!file) throw refuse(validationError('validation_required'))
  if (!(await looksLikeZip(file.path))) {
    throw refuse(validationError('validation_invalid_mime_type:backup', { file: file.filename }))
  }
  if (!isValidName(file.filename)) throw refuse(validationError('validation_match_invalid'))
  if (await exists(file.filename)) {
    throw refuse(validationError('validation_backup_name_exists:upload'))
  }
  return file
}

/**
 * A ZIP archive that does not read back (cut short, a broken central directory, past the
 * limits): refused at `data.file` (PocketBase keeps it, and no restore could use it).
 */
export function notAnArchive(err: ArchiveError): ApiError {
  return badRequest(
    messages.validationFailed,
    { file: validationError('validation_invalid_value:reason', { reason: err.message }) },
    err,
  )
}
