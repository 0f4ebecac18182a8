/** The generic (ozzo-validation) field errors of reference §8.1, shared by every field type. */

import { fieldError, type FieldError } from '../errors.js'

/** `validation_required` "Cannot be blank." */
export function required(): FieldError {
  return fieldError('validation_required', 'Cannot be blank.')
}

/** `validation_unsupported_value_type` "Invalid or unsupported value type." */
export function unsupportedType(): FieldError {
  return fieldError('validation_unsupported_value_type', 'Invalid or unsupported value type.')
}

/** `validation_min_greater_equal_than_required` "Must be no less than {threshold}." */
export function minThreshold(threshold: unknown): FieldError {
  return fieldError(
    'validation_min_greater_equal_than_required',
    'Must be no less than {threshold}.',
    {
      threshold,
    },
  )
}

/** `validation_max_less_equal_than_required` "Must be no greater than {threshold}." */
export function maxThreshold(threshold: unknown): FieldError {
  return fieldError(
    'validation_max_less_equal_than_required',
    'Must be no greater than {threshold}.',
    {
      threshold,
    },
  )
}

/** `validation_empty` "Must be blank." */
export function mustBeBlank(): FieldError {
  return fieldError('validation_empty', 'Must be blank.')
}

/** `validation_invalid_regex`: a `pattern` option that does not compile. */
export function invalidRegex(reason: string): FieldError {
  return fieldError('validation_invalid_regex', 'Invalid regular expression: {reason}.', { reason })
}
