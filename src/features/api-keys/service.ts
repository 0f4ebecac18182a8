import {
  badRequest,
  hasErrors,
  messages,
  validationError,
  type ValidationErrors,
} from '../../core/errors.js'
import {
  maxThreshold,
  minThreshold,
  required,
  unsupportedType,
} from '../../core/fields/generic-errors.js'

/** The longest key name, in characters. */
const MAX_NAME = 100

/** The longest lifetime of a key: ten years of 365 days, in seconds. */
export const MAX_DURATION = 10 * 365 * 24 * 60 * 60

/** A validated mint request. */
export interface MintInput {
  name: string
  duration: number
}

/**
 * Validates `{name, duration?}`: `name` a string of 1–100 characters (trimmed), `duration` a
 * non-negative integer number of seconds up to ten years (0 or absent: no expiry).
 */
export function validateMintInput(body: Record<string, unknown>): MintInput {
  const errors: ValidationErrors = {}
  let name = ''
  if (body.name === undefined || body.name === null) errors.name = required()
  else if (typeof body.name !== 'string') errors.name = unsupportedType()
  else {
    name = body.name.trim()
    const length = [...name].length
    if (length === 0) errors.name = required()
    else if (length > MAX_NAME)
      errors.name = validationError('validation_length_out_of_range', { min: 1, max: MAX_NAME })
  }
  let duration = 0
  const raw = body.duration
  if (raw !== undefined && raw !== null) {
    if (typeof raw !== 'number' || !Number.isFinite(raw)) errors.duration = unsupportedType()
    else if (!Number.isInteger(raw))
      errors.duration = validationError('validation_only_int_constraint')
    else if (raw < 0) errors.duration = minThreshold(0)
    else if (raw > MAX_DURATION) errors.duration = maxThreshold(MAX_DURATION)
    else duration = raw
  }
  if (hasErrors(errors)) throw badRequest(messages.validationFailed, errors)
  return { name, duration }
}
