/** The `oldPassword` check of a record update that changes its own password (reference §1.7). */

import { type FieldError, validationError } from '../errors.js'
import { wrongType } from '../fields/generic-errors.js'
import { verifyPassword } from '../fields/password.js'

/**
 * The error for `oldPassword` when a non-manager changes a password, as PocketBase reports it:
 * `validation_required` when it is missing, `validation_invalid_old_password` when it does not
 * match `hash`; null when it matches. A number or boolean (multipart inference turns `"1234"`
 * into 1234) is read as its text.
 */
export async function checkOldPassword(
  hash: unknown,
  oldPassword: unknown,
): Promise<FieldError | null> {
  if (oldPassword === undefined || oldPassword === null || oldPassword === '') {
    return validationError('validation_required')
  }
  const plain =
    typeof oldPassword === 'string'
      ? oldPassword
      : typeof oldPassword === 'number' || typeof oldPassword === 'boolean'
        ? String(oldPassword)
        : null
  if (plain === null) return wrongType('a string', oldPassword)
  const ok = typeof hash === 'string' && hash !== '' && (await verifyPassword(plain, hash))
  return ok ? null : validationError('validation_invalid_old_password')
}
