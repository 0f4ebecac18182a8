/**
 * The `select` field: one value (`maxSelect` ≤ 1; the last submitted wins) or a list of unique
 * values (`maxSelect` > 1) out of `values`. Setters `+name`, `name+`, `name-`.
 */

import type { Field } from '../collections/model.js'
import { type FieldError, validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { maxThreshold, required } from './generic-errors.js'
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
  checkInt,
  checkStringList,
  collectErrors,
  maxSelectOption,
  stringListOption,
} from './options.js'

/** `validation_too_many_values`, shared with relation fields. */
export function tooManyValues(maxSelect: number): FieldError {
  return validationError('validation_too_many_values', { maxSelect })
}

function checkValues(field: Field): FieldError | null {
  const typeErr = checkStringList(field, 'values')
  if (typeErr) return typeErr
  return stringListOption(field, 'values').some((v) => v !== '') ? null : required()
}

function checkMaxSelect(field: Field): FieldError | null {
  const err = checkInt(field, 'maxSelect', { min: 0 })
  if (err) return err
  const count = Math.max(stringListOption(field, 'values').length, 1)
  return maxSelectOption(field) > count ? maxThreshold(count) : null
}

function validateSelect(value: unknown, field: Field): FieldError | null {
  const items = toUniqueStrings(value)
  if (items.length === 0) return field.required ? required() : null
  const maxSelect = maxSelectOption(field)
  if (items.length > maxSelect) return tooManyValues(maxSelect)
  const values = stringListOption(field, 'values')
  const allowed = new Set(values)
  const bad = items.find((v) => !allowed.has(v))
  return bad === undefined ? null : invalidValue(bad)
}

/** PocketBase's `validation_invalid_value` ("Invalid value {value}."), the value as sent. */
export function invalidValue(value: string): FieldError {
  return validationError('validation_invalid_value:item', { value })
}

/** The `select` field type. */
export const selectField: FieldType = {
  type: 'select',
  column: listColumn,
  defaultOptions: () => ({ values: [], maxSelect: 0 }),
  validateOptions: (field) =>
    collectErrors({ values: checkValues(field), maxSelect: checkMaxSelect(field) }),
  isMulti: isMultiList,
  zero: listZero,
  normalize: normalizeList,
  applyModifier: applyListModifier,
  validate(value, field) {
    return Promise.resolve(listTypeError(value, field) ?? validateSelect(value, field))
  },
  toDb: listToDb,
  fromDb: listFromDb,
}
