/** The generic (ozzo-validation) field errors of reference §8.1, shared by every field type. */

import { type FieldError, validationError } from '../errors.js'

/** `validation_required` "Cannot be blank." */
export function required(): FieldError {
  return validationError('validation_required')
}

/** `validation_unsupported_value_type` "Invalid or unsupported value type." */
export function unsupportedType(): FieldError {
  return validationError('validation_unsupported_value_type')
}

/** How a submitted value reads in a message: `an object`, `a list`, `the text "abc"`, … */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list'
  switch (typeof value) {
    case 'string': {
      const text = value.length > 40 ? `${value.slice(0, 40)}…` : value
      return `the text ${JSON.stringify(text)}`
    }
    case 'number':
    case 'bigint':
      return `the number ${String(value)}`
    case 'boolean':
      return `the boolean ${String(value)}`
    default:
      return 'an object'
  }
}

/**
 * `validation_unsupported_value_type` naming what the field takes and what was sent, for a value
 * that was submitted but cannot be read as the field's type ("Must be text, not an object.").
 */
export function wrongType(expected: string, value: unknown): FieldError {
  return validationError('validation_unsupported_value_type:expected', {
    expected,
    actual: describeValue(value),
  })
}

/** `validation_min_greater_equal_than_required` "Must be no less than {threshold}." */
export function minThreshold(threshold: unknown): FieldError {
  return validationError('validation_min_greater_equal_than_required', {
    threshold,
  })
}

/** `validation_max_less_equal_than_required` "Must be no greater than {threshold}." */
export function maxThreshold(threshold: unknown): FieldError {
  return validationError('validation_max_less_equal_than_required', {
    threshold,
  })
}

/** `validation_empty` "Must be blank." */
export function mustBeBlank(): FieldError {
  return validationError('validation_empty')
}

/** `validation_invalid_regex`: a `pattern` option that does not compile. */
export function invalidRegex(reason: string): FieldError {
  return validationError('validation_invalid_regex', { reason })
}
