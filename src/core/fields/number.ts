/**
 * The `number` field: a float64 where `required` means non-zero; zero skips every other check.
 * Setters `name+`/`name-` add and subtract.
 */

import { validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required, wrongType } from './generic-errors.js'
import { toNumber } from './cast.js'
import {
  boolOption,
  checkBool,
  checkNumber,
  collectErrors,
  nullableNumberOption,
} from './options.js'
import type { Field } from '../collections/model.js'

/** `onlyInt`, with v0.22's `noDecimal` accepted as an alias. */
function onlyInt(field: Field): boolean {
  return boolOption(field, 'onlyInt') || boolOption(field, 'noDecimal')
}

function checkBound(field: Field, key: 'min' | 'max') {
  const typeErr = checkNumber(field, key)
  if (typeErr) return typeErr
  const v = nullableNumberOption(field, key)
  if (v !== null && onlyInt(field) && !Number.isInteger(v)) {
    return validationError('validation_only_int_constraint')
  }
  const min = nullableNumberOption(field, 'min')
  // PocketBase checks `max` with the value rule itself: `max >= min`.
  if (key === 'max' && v !== null && min !== null && v < min)
    return validationError('validation_min_number_constraint', { min })
  return null
}

/** The `number` field type. */
export const numberField: FieldType = {
  type: 'number',
  column: () => 'number',
  defaultOptions: () => ({ min: null, max: null, onlyInt: false }),
  validateOptions: (field) =>
    collectErrors({
      min: checkBound(field, 'min'),
      max: checkBound(field, 'max'),
      onlyInt: checkBool(field, 'onlyInt'),
    }),
  isMulti: () => false,
  zero: () => 0,
  // As PocketBase: what does not read as a number (`"abc"`, `" 12 "`, `[5]`, `{}`) is 0.
  normalize: (raw) => toNumber(raw),
  // `name+` adds, `name-` subtracts (a value that is no number adds 0); PocketBase has no
  // `+name` setter for numbers, so that key is ignored, as an unknown one.
  modifiers: ['append', 'remove'],
  applyModifier(current, modifier, raw) {
    const delta = toNumber(raw)
    return modifier === 'remove' ? toNumber(current) - delta : toNumber(current) + delta
  },
  validate(value, field) {
    if (typeof value !== 'number') return Promise.resolve(wrongType('a number', value))
    return Promise.resolve(validateNumber(value, field))
  },
  toDb: (value) => toNumber(value),
  fromDb: (raw) => (raw === null || raw === undefined ? 0 : toNumber(raw)),
}

function validateNumber(value: number, field: Field) {
  if (!Number.isFinite(value)) {
    return validationError('validation_not_a_number')
  }
  if (value === 0) return field.required ? required() : null
  if (onlyInt(field) && !Number.isInteger(value)) {
    return validationError('validation_only_int_constraint')
  }
  const min = nullableNumberOption(field, 'min')
  if (min !== null && value < min) {
    return validationError('validation_min_number_constraint', {
      min,
    })
  }
  const max = nullableNumberOption(field, 'max')
  if (max !== null && value > max) {
    return validationError('validation_max_number_constraint', {
      max,
    })
  }
  return null
}
