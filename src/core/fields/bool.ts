/** The `bool` field: `required` means the value must be `true`. */

import type { FieldType } from './field-type.js'
import { required, unsupportedType } from './generic-errors.js'
import { toBool } from './cast.js'

/** The `bool` field type. */
export const boolField: FieldType = {
  type: 'bool',
  column: () => 'bool',
  defaultOptions: () => ({}),
  validateOptions: () => ({}),
  isMulti: () => false,
  zero: () => false,
  normalize: (raw) => toBool(raw),
  validate(value, field) {
    if (typeof value !== 'boolean') return Promise.resolve(unsupportedType())
    return Promise.resolve(field.required && !value ? required() : null)
  },
  toDb: (value) => toBool(value),
  // SQLite hands back 0/1, PostgreSQL a boolean.
  fromDb: (raw) => toBool(raw),
}
