/**
 * The `password` field: validated as plain text, stored as a bcrypt hash (`prepare`), never
 * serialised. On update an unchanged value (the stored hash itself) skips the plain-text checks.
 */

import { bcryptPool } from '../../tools/bcrypt-pool.js'
import type { Field } from '../collections/model.js'
import { type FieldError, validationError } from '../errors.js'
import type { FieldType, ValidateContext } from './field-type.js'
import { invalidRegex, required, wrongType } from './generic-errors.js'
import { runeLength, toText } from './cast.js'
import { checkInt, checkString, collectErrors, numberOption, stringOption } from './options.js'
import { matchesPatternAsync, patternError } from './text-pattern.js'

/** The longest password bcrypt hashes without truncation (72 bytes, PocketBase allows 71 runes). */
export const PASSWORD_MAX = 71

/** The bcrypt cost when the `cost` option is 0. */
export const DEFAULT_BCRYPT_COST = 10

/** The bcrypt cost of a password field. */
export function passwordCost(field: Field): number {
  return numberOption(field, 'cost', 0) || DEFAULT_BCRYPT_COST
}

/** Hashes a plain password with the field's bcrypt cost. */
export function hashPassword(plain: string, field: Field): Promise<string> {
  // On worker threads: hashing never blocks the event loop.
  return bcryptPool.hash(plain, passwordCost(field))
}

/** True when `plain` matches a stored bcrypt `hashed` value; false for an empty hash. */
export async function verifyPassword(plain: string, hashed: string): Promise<boolean> {
  if (hashed === '' || plain === '') return false
  try {
    return await bcryptPool.compare(plain, hashed)
  } catch {
    return false
  }
}

function checkPattern(field: Field): FieldError | null {
  const err = checkString(field, 'pattern')
  if (err) return err
  const pattern = stringOption(field, 'pattern')
  const reason = pattern === '' ? null : patternError(pattern)
  return reason === null ? null : invalidRegex(reason)
}

/** A length error as PocketBase sends it for passwords: the bound in the message only. */
function withoutParams({ code, message }: FieldError): FieldError {
  return { code, message }
}

async function validatePassword(
  value: string,
  field: Field,
  ctx: ValidateContext,
): Promise<FieldError | null> {
  if (value === '') return field.required ? required() : null
  // Not submitted on update: the value is still the stored hash.
  if (!ctx.isNew && value === ctx.original) return null
  const length = runeLength(value)
  const min = numberOption(field, 'min', 0)
  if (length < min) return withoutParams(validationError('validation_min_text_constraint', { min }))
  const max = Math.min(numberOption(field, 'max', 0) || PASSWORD_MAX, PASSWORD_MAX)
  if (length > max) {
    return withoutParams(validationError('validation_max_text_constraint:password', { max }))
  }
  const pattern = stringOption(field, 'pattern')
  if (pattern !== '' && !(await matchesPatternAsync(pattern, value))) {
    return validationError('validation_invalid_format')
  }
  return null
}

/** The `password` field type. */
export const passwordField: FieldType = {
  type: 'password',
  serialised: false,
  column: () => 'text',
  defaultOptions: () => ({ min: 0, max: 0, pattern: '', cost: 0 }),
  validateOptions(field) {
    const min = numberOption(field, 'min', 0)
    return collectErrors({
      min: checkInt(field, 'min', { min: 1, max: PASSWORD_MAX }),
      max: checkInt(field, 'max', { min: Math.max(min, 1), max: PASSWORD_MAX }),
      pattern: checkPattern(field),
      cost: checkInt(field, 'cost', { min: 4, max: 31 }),
    })
  },
  isMulti: () => false,
  zero: () => '',
  normalize: (raw) => toText(raw),
  validate(value, field, ctx) {
    if (typeof value !== 'string') return Promise.resolve(wrongType('a string', value))
    return validatePassword(value, field, ctx)
  },
  prepare(value, field) {
    const plain = toText(value)
    return plain === '' ? Promise.resolve('') : hashPassword(plain, field)
  },
  toDb: (value) => toText(value),
  fromDb: (raw) => toText(raw),
}
