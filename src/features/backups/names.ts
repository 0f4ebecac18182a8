/** Backup names: the ones a client may give, the default and the automatic ones, and keys. */
import { badRequest, messages, validationError } from '../../core/errors.js'

/** The longest backup name. */
export const MAX_NAME_LENGTH = 150

/** The prefix of the automatic job's archives: no name a client gives can start with it. */
export const AUTO_PREFIX = '@auto_svc_backup_'

/** A name a client may give (create or upload): PocketBase's rule, `^[a-z0-9_-]+\.zip$`. */
export function isValidName(name: unknown): name is string {
  return (
    typeof name === 'string' && name.length <= MAX_NAME_LENGTH && /^[a-z0-9_-]+\.zip$/.test(name)
  )
}

/**
 * The name `POST /api/backups` was given, checked as PocketBase checks it: a non-string fails the
 * body's loading; then the length (1 to 150, `validation_length_out_of_range`), then the format
 * (`validation_match_invalid`), each at `data.name`. Absent, null or `""`: the default name.
 */
export function checkedName(name: unknown, now = new Date()): string {
  if (name === undefined || name === null || name === '') return defaultName(now)
  if (typeof name !== 'string') throw badRequest(messages.loadFailed)
  if (name.length > MAX_NAME_LENGTH) {
    throw badRequest(messages.validationFailed, {
      name: validationError('validation_length_out_of_range', { min: 1, max: MAX_NAME_LENGTH }),
    })
  }
  if (!isValidName(name)) {
    throw badRequest(messages.validationFailed, {
      name: validationError('validation_match_invalid'),
    })
  }
  return name
}

/**
 * A key a client may name in a path (download, delete, restore): a plain file name, so no
 * folder and no way out of the backups folder; automatic archives (`@auto_…`) included.
 */
export function isValidKey(key: unknown): key is string {
  return (
    typeof key === 'string' &&
    key.length <= 255 &&
    /^@?[A-Za-z0-9_-][A-Za-z0-9._-]*\.zip$/.test(key) &&
    !key.includes('..')
  )
}

/** `yyyyMMddHHmmss` in UTC (with `SSS` milliseconds when `ms`). */
function stamp(now: Date, ms = false): string {
  return now
    .toISOString()
    .replace(/\D/g, '')
    .slice(0, ms ? 17 : 14)
}

/** The default name of a backup taken now: `svc_backup_<UTC yyyyMMddHHmmss>.zip`. */
export function defaultName(now = new Date()): string {
  return `svc_backup_${stamp(now)}.zip`
}

/** The name of an automatic backup: `@auto_svc_backup_<UTC yyyyMMddHHmmssSSS>.zip`. */
export function autoName(now = new Date()): string {
  return `${AUTO_PREFIX}${stamp(now, true)}.zip`
}
