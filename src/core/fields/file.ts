/**
 * The `file` field, metadata only: the value is the stored file name (single, `maxSelect` ≤ 1)
 * or a list of names. Uploads, thumbs and storage belong to the files feature, which turns
 * uploads into names before validation. Setters `+name`, `name+`, `name-`.
 */

import type { Field } from '../collections/model.js'
import { type FieldError, validationError, type ValidationErrors } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required } from './generic-errors.js'
import {
  applyListModifier,
  isMultiList,
  listColumn,
  listFromDb,
  listToDb,
  listTypeError,
  listZero,
  normalizeList,
  toUniqueStrings,
} from './list-values.js'
import {
  checkBool,
  checkInt,
  checkStringList,
  collectErrors,
  maxSelectOption,
  numberOption,
  stringListOption,
} from './options.js'

/** The effective `maxSize` when the option is 0: 5 MiB per file. */
export const DEFAULT_FILE_MAX_SIZE = 5 << 20

/** The longest accepted file name. */
export const MAX_FILE_NAME_LENGTH = 150

/** `WxH`, `WxHt`, `WxHb`, `WxHf` with at most one zero side (reference §5.3). */
const thumbRe = /^(\d+)x(\d+)([tbf])?$/

/** The effective maximum size in bytes of one file of a file field. */
export function fileMaxSize(field: Field): number {
  return numberOption(field, 'maxSize', 0) || DEFAULT_FILE_MAX_SIZE
}

/** True for a thumb size such as `100x100`, `0x50` or `100x50t`. */
export function isThumbSize(value: string): boolean {
  const m = thumbRe.exec(value)
  return m !== null && !(Number(m[1]) === 0 && Number(m[2]) === 0)
}

/**
 * True for a name that can only address a file of the record's own folder: 1–150 characters,
 * no path separators, no control characters, not `.` or `..`.
 */
export function isSafeFileName(name: string): boolean {
  return (
    name.length >= 1 &&
    name.length <= MAX_FILE_NAME_LENGTH &&
    name !== '.' &&
    name !== '..' &&
    !/[/\\\p{Cc}]/u.test(name)
  )
}

/**
 * The thumbs' errors, one per bad item as PocketBase reports them (`thumbs.0`): `0x0` is not in
 * the allowed list, anything else not in the `WxH[tbf]` format.
 */
function checkThumbs(field: Field): FieldError | null {
  const err = checkStringList(field, 'thumbs')
  if (err) return err
  const items: ValidationErrors = {}
  stringListOption(field, 'thumbs').forEach((t, i) => {
    if (isThumbSize(t)) return
    items[String(i)] = thumbRe.test(t)
      ? validationError('validation_not_in_invalid')
      : validationError('validation_match_invalid')
  })
  // NB: a nested entry (`thumbs.<i>`) where the option table expects one error per option.
  return Object.keys(items).length > 0 ? (items as unknown as FieldError) : null
}

function checkMimeTypes(field: Field): FieldError | null {
  const err = checkStringList(field, 'mimeTypes')
  if (err) return err
  const bad = stringListOption(field, 'mimeTypes').find((t) => !/^[\w.+-]+\/[\w.+*-]+$/.test(t))
  return bad === undefined ? null : validationError('validation_invalid_mime_type', { value: bad })
}

function validateFiles(value: unknown, field: Field): FieldError | null {
  const names = toUniqueStrings(value)
  if (names.length === 0) return field.required ? required() : null
  const maxSelect = maxSelectOption(field)
  if (names.length > maxSelect) {
    return validationError('validation_too_many_files', {
      maxSelect,
    })
  }
  const invalidFiles = names.filter((n) => !isSafeFileName(n))
  return invalidFiles.length === 0
    ? null
    : validationError('validation_invalid_file', { invalidFiles })
}

/** The `file` field type. */
export const fileField: FieldType = {
  type: 'file',
  column: listColumn,
  defaultOptions: () => ({
    maxSelect: 0,
    maxSize: 0,
    mimeTypes: [],
    thumbs: [],
    protected: false,
  }),
  validateOptions: (field) =>
    collectErrors({
      maxSelect: checkInt(field, 'maxSelect', { min: 0 }),
      maxSize: checkInt(field, 'maxSize', { min: 0 }),
      mimeTypes: checkMimeTypes(field),
      thumbs: checkThumbs(field),
      protected: checkBool(field, 'protected'),
    }),
  isMulti: isMultiList,
  zero: listZero,
  normalize: normalizeList,
  applyModifier: applyListModifier,
  validate(value, field) {
    return Promise.resolve(listTypeError(value, field) ?? validateFiles(value, field))
  },
  toDb: listToDb,
  fromDb: listFromDb,
}
