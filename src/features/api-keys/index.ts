import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { mintApiKey } from '../../core/auth/api-keys.js'
import {
  badRequest,
  fieldError,
  forbidden,
  hasErrors,
  unauthorized,
  type ValidationErrors,
} from '../../core/errors.js'
import {
  maxThreshold,
  minThreshold,
  required,
  unsupportedType,
} from '../../core/fields/generic-errors.js'
import { readBody } from '../../http/body.js'
import { requestInfo } from '../../http/request-info.js'

/** The longest key name, in characters. */
const MAX_NAME = 100

/** The longest lifetime of a key: ten years of 365 days, in seconds. */
export const MAX_DURATION = 10 * 365 * 24 * 60 * 60

/** A validated mint request. */
interface MintInput {
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
      errors.name = fieldError(
        'validation_length_out_of_range',
        'The length must be between {min} and {max}.',
        { min: 1, max: MAX_NAME },
      )
  }
  let duration = 0
  const raw = body.duration
  if (raw !== undefined && raw !== null) {
    if (typeof raw !== 'number' || !Number.isFinite(raw)) errors.duration = unsupportedType()
    else if (!Number.isInteger(raw))
      errors.duration = fieldError(
        'validation_only_int_constraint',
        'Decimal numbers are not allowed.',
      )
    else if (raw < 0) errors.duration = minThreshold(0)
    else if (raw > MAX_DURATION) errors.duration = maxThreshold(MAX_DURATION)
    else duration = raw
  }
  if (hasErrors(errors))
    throw badRequest('An error occurred while validating the submitted data.', errors)
  return { name, duration }
}

/**
 * `POST /api/api-keys` (DECISIONS "API keys"): any authenticated record mints a key that
 * authenticates as itself → 200 `{id, name, key, expires, created}`; the key is shown only here.
 * Owners list and revoke their keys through the records API of `_api_keys`. A request made with
 * an API key cannot mint another one, so a key's expiry and revocation cannot be escaped.
 */
export function register(app: App, http: FastifyInstance): void {
  http.post('/api/api-keys', { config: { rateLimitTags: ['create'] } }, async (req) => {
    const { auth } = requestInfo(req)
    if (!auth) throw unauthorized('The request requires valid record authorization token.')
    if (req.svcApiKey) throw forbidden('API keys cannot be used to mint API keys.')
    const { values } = await readBody(req)
    return mintApiKey(app, auth, validateMintInput(values))
  })
}
