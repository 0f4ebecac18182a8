/** Value checks and field errors shared by the settings groups (PocketBase's codes). */

import { isIP } from 'node:net'
import { type FieldError, validationError, type ValidationKey } from '../errors.js'

/** True for an absolute `http:` or `https:` URL with a host and no whitespace. */
export function isUrl(s: string): boolean {
  if (/\s/.test(s)) return false
  try {
    const u = new URL(s)
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''
  } catch {
    return false
  }
}

/** `validation_is_url`. */
export const notUrl = (): FieldError => validationError('validation_is_url:settings')

/** `validation_in_invalid`: a value outside the allowed set. */
export const notIn = (): FieldError => validationError('validation_in_invalid')

/** A `validation_match_invalid` entry of the catalogue: the generic one, or one naming a format. */
export type FormatKey = Extract<
  ValidationKey,
  'validation_match_invalid' | `validation_match_invalid:${string}`
>

/** `validation_match_invalid`, with the catalogue message (`key`) that says which format. */
export const badFormat = (key: FormatKey = 'validation_match_invalid'): FieldError =>
  validationError(key)

/** `validation_length_out_of_range` for a length outside `min`..`max`. */
export const lengthRange = (min: number, max: number): FieldError =>
  validationError('validation_length_out_of_range', { min, max })

const hostRe =
  /^(?=.{1,253}\.?$)[a-zA-Z0-9_](?:[a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?(?:\.[a-zA-Z0-9_](?:[a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?)*\.?$/

/** ozzo's `is.Host`: an IP address or a DNS name. */
export const isHost = (s: string): boolean => isIP(s) !== 0 || hostRe.test(s)

/** `validation_is_host`. */
export const notHost = (): FieldError => validationError('validation_is_host')
