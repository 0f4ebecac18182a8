/**
 * The `autodate` field: set to "now" on create (`onCreate`) and/or on every update (`onUpdate`);
 * submitted values are ignored, so the record service must not copy body values into it and
 * calls {@link autodateValue} instead.
 */

import type { Field } from '../collections/model.js'
import { validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { unsupportedType } from './generic-errors.js'
import { dateFromDb, toDateValue } from './date.js'
import { boolOption, checkBool, collectErrors } from './options.js'

/**
 * The value an autodate field takes when a record is saved: `now` on create when `onCreate`, on
 * update when `onUpdate`; `undefined` means "keep the current value".
 */
export function autodateValue(field: Field, isNew: boolean, now: string): string | undefined {
  return boolOption(field, isNew ? 'onCreate' : 'onUpdate') ? now : undefined
}

/** The `autodate` field type. */
export const autodateField: FieldType = {
  type: 'autodate',
  column: () => 'text',
  // PocketBase's zero values: a new autodate field must enable one of them.
  defaultOptions: () => ({ onCreate: false, onUpdate: false }),
  validateOptions(field) {
    const errors = collectErrors({
      onCreate: checkBool(field, 'onCreate'),
      onUpdate: checkBool(field, 'onUpdate'),
    })
    if (!errors.onCreate && !boolOption(field, 'onCreate') && !boolOption(field, 'onUpdate')) {
      errors.onCreate = validationError('validation_required:autodate')
      if (!errors.onUpdate) errors.onUpdate = validationError('validation_required:autodate')
    }
    return errors
  },
  isMulti: () => false,
  zero: () => '',
  normalize: (raw) => toDateValue(raw),
  // No `required`: the value comes from the clock, never from the client.
  validate: (value) => Promise.resolve(typeof value === 'string' ? null : unsupportedType()),
  toDb: (value) => toDateValue(value),
  fromDb: (raw) => dateFromDb(raw),
}
