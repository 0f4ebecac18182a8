/** The `editor` field: rich text (HTML) of at most `maxSize` bytes (0 → 5 MiB). */

import type { Field } from '../collections/model.js'
import { validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required, wrongType } from './generic-errors.js'
import { byteLength, toText } from './cast.js'
import { checkBool, checkInt, collectErrors, numberOption } from './options.js'

/** The effective `maxSize` when the option is 0: 5 MiB. */
export const DEFAULT_EDITOR_MAX_SIZE = 5 << 20

/** The effective maximum size in bytes of an editor field's value. */
export function editorMaxSize(field: Field): number {
  return numberOption(field, 'maxSize', 0) || DEFAULT_EDITOR_MAX_SIZE
}

/** The `editor` field type. */
export const editorField: FieldType = {
  type: 'editor',
  column: () => 'text',
  defaultOptions: () => ({ maxSize: 0, convertURLs: false }),
  validateOptions: (field) =>
    collectErrors({
      maxSize: checkInt(field, 'maxSize', { min: 0 }),
      convertURLs: checkBool(field, 'convertURLs'),
    }),
  isMulti: () => false,
  zero: () => '',
  normalize: (raw) => toText(raw),
  validate(value, field) {
    if (typeof value !== 'string') return Promise.resolve(wrongType('a string', value))
    if (value === '') return Promise.resolve(field.required ? required() : null)
    const maxSize = editorMaxSize(field)
    if (byteLength(value) > maxSize) {
      return Promise.resolve(validationError('validation_content_size_limit', { maxSize }))
    }
    return Promise.resolve(null)
  },
  toDb: (value) => toText(value),
  fromDb: (raw) => toText(raw),
}
