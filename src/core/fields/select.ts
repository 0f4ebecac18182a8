/**
 * The `select` field: one value (`maxSelect` ≤ 1; the last submitted wins) or a list of unique
 * values (`maxSelect` > 1) out of `values`. Setters `+name`, `name+`, `name-`.
 */

import type { Field } from '../collections/model.js'
import { fieldError, type FieldError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { maxThreshold, required, unsupportedType } from './generic-errors.js'
import {
  applyListModifier,
  isMultiList,
  listColumn,
  listFromDb,
  listToDb,
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
  return fieldError('validation_too_many_values', 'Select no more than {maxSelect}.', { maxSelect })
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
  const allowed = new Set(stringListOption(field, 'values'))
  const bad = items.find((v) => !allowed.has(v))
  return bad === undefined
    ? null
    : fieldError('validation_invalid_value', 'Invalid value {value}.', { value: bad })
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
    const ok = isMultiList(field) ? Array.isArray(value) : typeof value === 'string'
    return Promise.resolve(ok ? validateSelect(value, field) : unsupportedType())
  },
  toDb: listToDb,
  fromDb: listFromDb,
}
