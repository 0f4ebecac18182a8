/**
 * Field error entries shared by every family: PocketBase's generic (ozzo-validation) codes and
 * the JSON-type checks of collection and settings input.
 */
import type { Entry } from './catalogue.js'

/** Generic field error entries (`validation_required`, `validation_in_invalid`, …). */
export const commonCodes = {
  validation_required: 'Cannot be blank.',
  validation_empty: 'Must be blank.',
  validation_nil: 'Must be blank.',
  validation_nil_or_not_empty_required: 'Cannot be blank.',
  validation_in_invalid: 'Must be a valid value.',
  validation_not_in_invalid: 'Must not be in list.',
  validation_match_invalid: 'Must be in a valid format.',
  validation_unknown_field: 'Unknown field.',
  validation_values_mismatch: "Values don't match.",
  validation_not_unique: 'Value must be unique.',
  validation_is_email: 'Must be a valid email address.',
  validation_is_url: 'Must be a valid url.',
  'validation_is_url:settings': 'Must be a valid URL.',
  validation_is_host: 'Must be a valid IP address or DNS name.',
  validation_length_out_of_range: 'The length must be between {min} and {max}.',
  validation_length_too_long: 'The length must be no more than {max}.',
  validation_length_invalid: 'The length must be exactly {min}.',
  validation_min_greater_equal_than_required: 'Must be no less than {threshold}.',
  validation_max_less_equal_than_required: 'Must be no greater than {threshold}.',
  validation_only_int_constraint: 'Decimal numbers are not allowed.',
  validation_invalid_value: 'Invalid value.',
  'validation_invalid_value:reason': 'Invalid value: {reason}.',
  'validation_invalid_value:object': 'Must be an object.',
  'validation_invalid_value:string': 'Must be a string.',
  'validation_invalid_value:string_or_null': 'Must be a string or null.',
  'validation_invalid_value:strings': 'Must be a list of strings.',
  'validation_invalid_value:boolean': 'Must be a boolean.',
  'validation_invalid_value:integer': 'Must be an integer.',
  'validation_invalid_value:list': 'Must be a list.',
} as const satisfies Record<string, Entry>
