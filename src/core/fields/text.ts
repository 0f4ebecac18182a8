/**
 * The `text` field: a string of at most `max` runes (0 → 5000), optionally matching `pattern`,
 * optionally generated from `autogeneratePattern`; the `id` field is a text field with
 * `primaryKey`.
 */

import type { Field } from '../collections/model.js'
import { type FieldError, validationError } from '../errors.js'
import type { FieldType, ValidateContext } from './field-type.js'
import { invalidRegex, required, wrongType } from './generic-errors.js'
import { runeLength, toText } from './cast.js'
import {
  checkBool,
  checkInt,
  checkString,
  collectErrors,
  numberOption,
  stringOption,
} from './options.js'
import {
  generateFromPattern,
  matchesPattern,
  matchesPatternAsync,
  patternError,
} from './text-pattern.js'

/** The effective `max` when the option is 0. */
export const DEFAULT_TEXT_MAX = 5000

/** The `pattern` of the default `id` field. */
export const DEFAULT_ID_PATTERN = '^[a-z0-9]+$'

/** The `autogeneratePattern` of the default `id` field. */
export const DEFAULT_ID_AUTOGENERATE = '[a-z0-9]{15}'

const forbiddenPkChar = /[./\\|"'`<>:?*%$\s\0]/u
const reservedPk = /^(?:CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])$/i

/**
 * Checks a plain value against `required`, `min`, `max` and `pattern`; a long match runs on the
 * CPU worker pool (text-pattern.ts), so a guest's long value never holds the event loop.
 */
export async function validateTextValue(value: string, field: Field): Promise<FieldError | null> {
  const err = checkTextLength(value, field)
  if (err || value === '') return err
  const pattern = stringOption(field, 'pattern')
  if (pattern !== '' && !(await matchesPatternAsync(pattern, value))) {
    return validationError('validation_invalid_format')
  }
  return null
}

/** {@link validateTextValue} on this thread, for the short samples of an `autogeneratePattern`. */
function validateTextSample(value: string, field: Field): FieldError | null {
  const err = checkTextLength(value, field)
  if (err || value === '') return err
  const pattern = stringOption(field, 'pattern')
  if (pattern !== '' && !matchesPattern(pattern, value)) {
    return validationError('validation_invalid_format')
  }
  return null
}

/** Checks a plain value against `required`, `min` and `max`. */
function checkTextLength(value: string, field: Field): FieldError | null {
  const primaryKey = field.options.primaryKey === true
  if (value === '') return field.required || primaryKey ? required() : null
  // A string has between length / 2 and length runes: count them only when that matters.
  let runes = -1
  const length = () => (runes < 0 ? (runes = runeLength(value)) : runes)
  const min = numberOption(field, 'min', 0)
  if (min > 0 && value.length / 2 < min && length() < min) {
    return validationError('validation_min_text_constraint', {
      min,
    })
  }
  const max = numberOption(field, 'max', 0) || DEFAULT_TEXT_MAX
  if (value.length > max && length() > max) {
    return validationError('validation_max_text_constraint', {
      max,
    })
  }
  return null
}

/**
 * A generated value for a text field with an `autogeneratePattern`, appended to `prefix` (the
 * `name:autogenerate` setter); `undefined` when the field has no pattern. The record service
 * calls it on create for an empty value.
 */
export function autogenerateText(field: Field, prefix = ''): string | undefined {
  const pattern = stringOption(field, 'autogeneratePattern')
  return pattern === '' ? undefined : prefix + generateFromPattern(pattern)
}

function checkPattern(field: Field, key: string): FieldError | null {
  const typeErr = checkString(field, key)
  if (typeErr) return typeErr
  const pattern = stringOption(field, key)
  const reason = pattern === '' ? null : patternError(pattern)
  return reason === null ? null : invalidRegex(reason)
}

function checkAutogenerate(field: Field): FieldError | null {
  const err = checkPattern(field, 'autogeneratePattern')
  if (err || stringOption(field, 'autogeneratePattern') === '') return err
  // Several samples, since a pattern may only sometimes produce invalid values.
  for (let i = 0; i < 10; i++) {
    let sample: string
    try {
      sample = autogenerateText(field) ?? ''
    } catch (e) {
      return validationError('validation_invalid_autogenerate_pattern', {
        reason: e instanceof Error ? e.message : String(e),
      })
    }
    if (validateTextSample(sample, field)) {
      return validationError('validation_invalid_autogenerate_pattern_value', {
        sample: JSON.stringify(sample),
      })
    }
  }
  return null
}

async function validatePrimaryKey(
  value: string,
  field: Field,
  ctx: ValidateContext,
): Promise<FieldError | null> {
  if (!ctx.isNew && ctx.original !== undefined) {
    return value === ctx.original ? null : validationError('validation_pk_change')
  }
  const err = await validateTextValue(value, field)
  if (err) return err
  const bad = forbiddenPkChar.exec(value)
  if (bad) {
    return validationError('validation_forbidden_pk_character', {
      char: JSON.stringify(bad[0]),
    })
  }
  if (reservedPk.test(value)) {
    return validationError('validation_reserved_pk', { value })
  }
  // The default pattern allows only lower-case ids, so the unique index already covers them.
  if (stringOption(field, 'pattern') !== DEFAULT_ID_PATTERN) {
    const missing = await ctx.lookup.missingIds(ctx.collection, [value])
    if (missing.length === 0) {
      return validationError('validation_pk_invalid')
    }
  }
  return null
}

/** The `text` field type. */
export const textField: FieldType = {
  type: 'text',
  column: () => 'text',
  defaultOptions: () => ({
    min: 0,
    max: 0,
    pattern: '',
    autogeneratePattern: '',
    primaryKey: false,
  }),
  validateOptions(field) {
    const min = numberOption(field, 'min', 0)
    return collectErrors({
      min: checkInt(field, 'min', { min: 0 }),
      max: checkInt(field, 'max', { min: Math.max(min, 0) }),
      pattern: checkPattern(field, 'pattern'),
      autogeneratePattern: checkAutogenerate(field),
      primaryKey: checkBool(field, 'primaryKey'),
    })
  },
  isMulti: () => false,
  zero: () => '',
  normalize: (raw) => toText(raw),
  validate(value, field, ctx) {
    if (typeof value !== 'string') return Promise.resolve(wrongType('a string', value))
    if (field.options.primaryKey === true) return validatePrimaryKey(value, field, ctx)
    return validateTextValue(value, field)
  },
  toDb: (value) => toText(value),
  fromDb: (raw) => toText(raw),
}
