/**
 * Reading and validating field options. Options arrive as loose JSON, so readers fall back to a
 * default on a wrong type and the validators report that type. Like ozzo-validation, range checks
 * skip a zero (unset) option; `required` options say so explicitly.
 */

import type { Field } from '../collections/model.js'
import type { FieldError } from '../errors.js'
import { maxThreshold, minThreshold, required, wrongType } from './generic-errors.js'

/** The largest integer JSON round-trips exactly (PocketBase's `maxSafeJSONInt`). */
export const MAX_SAFE_JSON_INT = Number.MAX_SAFE_INTEGER

/** A numeric option, or `fallback` when it is missing or not a finite number. */
export function numberOption(field: Field, key: string, fallback: number): number {
  const v = field.options[key]
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback
}

/** A numeric option that may be unset (`null`); `null` when missing or not a finite number. */
export function nullableNumberOption(field: Field, key: string): number | null {
  const v = field.options[key]
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** A boolean option; anything but `true` is false. */
export function boolOption(field: Field, key: string): boolean {
  return field.options[key] === true
}

/** A string option, `''` when missing or not a string. */
export function stringOption(field: Field, key: string): string {
  const v = field.options[key]
  return typeof v === 'string' ? v : ''
}

/** A list-of-strings option; non-string items are dropped. */
export function stringListOption(field: Field, key: string): string[] {
  const v = field.options[key]
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []
}

/** The effective `maxSelect` of a list field (0 and 1 both mean single). */
export function maxSelectOption(field: Field): number {
  return Math.max(Math.trunc(numberOption(field, 'maxSelect', 0)), 1)
}

/** Range limits of {@link checkInt}; zero values skip the range check unless `required`. */
export interface IntRule {
  min?: number
  max?: number
  required?: boolean
}

/** Checks that an option is unset or an integer within the rule's range. */
export function checkInt(field: Field, key: string, rule: IntRule = {}): FieldError | null {
  const v = field.options[key]
  if (v === undefined || v === null || v === 0) return rule.required ? required() : null
  if (typeof v !== 'number' || !Number.isInteger(v)) return wrongType('an integer', v)
  return checkRange(v, rule.min, rule.max ?? MAX_SAFE_JSON_INT)
}

/** Checks that an option is unset, `null`, or a finite number. */
export function checkNumber(field: Field, key: string): FieldError | null {
  const v = field.options[key]
  if (v === undefined || v === null) return null
  return typeof v === 'number' && Number.isFinite(v) ? null : wrongType('a number', v)
}

/** Checks that an option is unset or a boolean. */
export function checkBool(field: Field, key: string): FieldError | null {
  const v = field.options[key]
  return v === undefined || v === null || typeof v === 'boolean' ? null : wrongType('a boolean', v)
}

/** Checks that an option is unset or a string. */
export function checkString(field: Field, key: string): FieldError | null {
  const v = field.options[key]
  return v === undefined || v === null || typeof v === 'string' ? null : wrongType('a string', v)
}

/** Checks that an option is unset or a list of strings. */
export function checkStringList(field: Field, key: string): FieldError | null {
  const v = field.options[key]
  if (v === undefined || v === null) return null
  return Array.isArray(v) && v.every((s) => typeof s === 'string')
    ? null
    : wrongType('a list of strings', v)
}

/** Checks `min <= value <= max`, skipping a zero value (ozzo's Min/Max semantics). */
export function checkRange(value: number, min?: number, max?: number): FieldError | null {
  if (value === 0) return null
  if (min !== undefined && value < min) return minThreshold(min)
  if (max !== undefined && value > max) return maxThreshold(max)
  return null
}

/** Keeps the failing checks of a `{option: error | null}` table. */
export function collectErrors(
  checks: Record<string, FieldError | null | undefined>,
): Record<string, FieldError> {
  const out: Record<string, FieldError> = {}
  for (const [key, err] of Object.entries(checks)) if (err) out[key] = err
  return out
}
