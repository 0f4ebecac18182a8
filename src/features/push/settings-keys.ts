/**
 * Checks of the push credentials in the settings (SPEC §2.7): the VAPID key pair, the FCM
 * service-account file and the APNs `.p8` key. Each parses the value the way the push backend
 * will, so a setting that cannot work is refused when it is saved, not when a push is sent.
 */

import { createECDH, createPrivateKey, createPublicKey } from 'node:crypto'
import { type FieldError, validationError } from '../../core/errors.js'

const base64url = /^[A-Za-z0-9_-]+$/

/** Decodes raw unpadded base64url, or null when the text is not that. */
function decode(text: string): Buffer | null {
  return base64url.test(text) ? Buffer.from(text, 'base64url') : null
}

/** True for a 65-byte uncompressed P-256 point that lies on the curve. */
function isP256PublicKey(raw: Buffer): boolean {
  if (raw.length !== 65 || raw[0] !== 0x04) return false
  try {
    const [x, y] = [raw.subarray(1, 33), raw.subarray(33)].map((b) => b.toString('base64url'))
    createPublicKey({ key: { kty: 'EC', crv: 'P-256', x, y }, format: 'jwk' })
    return true
  } catch {
    return false
  }
}

/** The public key of a 32-byte P-256 private scalar, or null when it is not a valid one. */
function p256PublicOf(raw: Buffer): Buffer | null {
  if (raw.length !== 32) return null
  try {
    const ecdh = createECDH('prime256v1')
    ecdh.setPrivateKey(raw)
    return ecdh.getPublicKey()
  } catch {
    return null
  }
}

/**
 * Checks a VAPID key pair (either may be absent): the public key a 65-byte uncompressed P-256
 * point, the private key a 32-byte P-256 scalar, both raw unpadded base64url, and the private
 * key the one of the public key.
 */
export function checkVapidKeys(
  publicKey: string | undefined,
  privateKey: string | undefined,
): { publicKey?: FieldError; privateKey?: FieldError } {
  const errors: { publicKey?: FieldError; privateKey?: FieldError } = {}
  const pub = publicKey === undefined ? null : decode(publicKey)
  if (publicKey !== undefined && !(pub && isP256PublicKey(pub)))
    errors.publicKey = validationError('validation_invalid_vapid_key:public')
  const raw = privateKey === undefined ? null : decode(privateKey)
  const derived = raw ? p256PublicOf(raw) : null
  if (privateKey !== undefined && !derived)
    errors.privateKey = validationError('validation_invalid_vapid_key')
  else if (derived && pub && !errors.publicKey && !derived.equals(pub))
    errors.privateKey = validationError('validation_vapid_key_mismatch')
  return errors
}

/** True for a PEM private key that Node can load (PKCS#8, SEC1 or PKCS#1). */
function loadsAsPrivateKey(pem: string, curve?: string): boolean {
  try {
    const key = createPrivateKey(pem)
    if (curve === undefined) return true
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === curve
  } catch {
    return false
  }
}

/**
 * Checks an FCM service-account key file: a JSON object with non-empty `project_id`,
 * `client_email` and a loadable PEM `private_key`. Returns the error, or undefined.
 */
export function checkServiceAccount(json: string): FieldError | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    return validationError('validation_invalid_json:file')
  }
  const o = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
  const text = (k: string): string => {
    const v = o[k]
    return typeof v === 'string' ? v.trim() : ''
  }
  const ok =
    text('project_id') !== '' &&
    text('client_email') !== '' &&
    loadsAsPrivateKey(text('private_key'))
  return ok ? undefined : validationError('validation_invalid_service_account')
}

/** Checks an APNs token-auth key: the PEM of a P-256 private key (a `.p8` file). */
export function checkApnsKey(pem: string): FieldError | undefined {
  return loadsAsPrivateKey(pem, 'prime256v1')
    ? undefined
    : validationError('validation_invalid_key')
}
