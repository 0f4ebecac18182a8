import { createPrivateKey, type KeyObject } from 'node:crypto'
import { SignJWT } from 'jose'
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

/** The longest client secret Apple accepts: about six months, in seconds. */
export const MAX_SECRET_DURATION = 15_777_000

/** The audience of every Sign in with Apple client secret. */
const APPLE_AUDIENCE = 'https://appleid.apple.com'

/** A validated client-secret request. */
export interface ClientSecretInput {
  clientId: string
  teamId: string
  keyId: string
  privateKey: string
  duration: number
}

/** A required string field, optionally of an exact length; records its error in `errors`. */
function stringField(
  body: Record<string, unknown>,
  name: string,
  errors: ValidationErrors,
  exactLength?: number,
): string {
  const value = body[name]
  if (value === undefined || value === null || value === '') errors[name] = required()
  else if (typeof value !== 'string') errors[name] = unsupportedType()
  else if (exactLength !== undefined && [...value].length !== exactLength)
    errors[name] = validationError('validation_length_invalid', {
      min: exactLength,
      max: exactLength,
    })
  else return value
  return ''
}

/** A PEM private key's frame, PKCS#8 (PocketBase's rule) or SEC1. */
const PEM_KEY = /-----BEGIN (EC )?PRIVATE KEY-----[\s\S]+-----END (EC )?PRIVATE KEY-----/

/** Validates the body as PocketBase's form does; 400 `Invalid client secret data.` otherwise. */
export function validateClientSecretInput(body: Record<string, unknown>): ClientSecretInput {
  const errors: ValidationErrors = {}
  const clientId = stringField(body, 'clientId', errors)
  const teamId = stringField(body, 'teamId', errors, 10)
  const keyId = stringField(body, 'keyId', errors, 10)
  const privateKey = stringField(body, 'privateKey', errors)
  // PocketBase's check of the PEM's frame (its parse errors come later); SEC1 keys pass too.
  if (privateKey && !PEM_KEY.test(privateKey))
    errors.privateKey = validationError('validation_match_invalid')
  const duration = body.duration
  if (duration === undefined || duration === null || duration === 0) errors.duration = required()
  else if (typeof duration !== 'number' || !Number.isFinite(duration))
    errors.duration = unsupportedType()
  else if (!Number.isInteger(duration))
    errors.duration = validationError('validation_only_int_constraint')
  else if (duration < 1) errors.duration = minThreshold(1)
  else if (duration > MAX_SECRET_DURATION) errors.duration = maxThreshold(MAX_SECRET_DURATION)
  if (hasErrors(errors)) throw badRequest(messages.appleSecretInvalid, errors)
  return { clientId, teamId, keyId, privateKey, duration: duration as number }
}

/** Imports a PEM EC P-256 private key (PKCS#8 as Apple issues it, or SEC1). */
function importSigningKey(pem: string): KeyObject {
  const key = createPrivateKey({ key: pem.trim(), format: 'pem' })
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new Error('the private key must be an EC P-256 key')
  return key
}

/**
 * Signs a Sign in with Apple client secret: an ES256 JWT with `iss` teamId, `sub` clientId,
 * `aud` Apple's, `iat` now, `exp` now + duration, and `kid` keyId in the header.
 */
export async function generateClientSecret(input: ClientSecretInput): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: input.keyId, typ: 'JWT' })
    .setIssuer(input.teamId)
    .setSubject(input.clientId)
    .setAudience(APPLE_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + input.duration)
    .sign(importSigningKey(input.privateKey))
}
