/** Value checks and field errors shared by the settings groups (PocketBase's codes). */

import { isIP } from 'node:net'
import { fieldError, type FieldError } from '../errors.js'

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
export const notUrl = (): FieldError => fieldError('validation_is_url', 'Must be a valid url.')

/** `validation_in_invalid`: a value outside the allowed set. */
export const notIn = (): FieldError => fieldError('validation_in_invalid', 'Must be a valid value.')

/** `validation_match_invalid`, with a message that says which format. */
export const badFormat = (message = 'Must be in a valid format.'): FieldError =>
  fieldError('validation_match_invalid', message)

/** `validation_length_out_of_range` for a length outside `min`..`max`. */
export const lengthRange = (min: number, max: number): FieldError =>
  fieldError('validation_length_out_of_range', 'The length must be between {min} and {max}.', {
    min,
    max,
  })

const hostRe =
  /^(?=.{1,253}\.?$)[a-zA-Z0-9_](?:[a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?(?:\.[a-zA-Z0-9_](?:[a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?)*\.?$/

/** ozzo's `is.Host`: an IP address or a DNS name. */
export const isHost = (s: string): boolean => isIP(s) !== 0 || hostRe.test(s)

/** `validation_is_host`. */
export const notHost = (): FieldError =>
  fieldError('validation_is_host', 'Must be a valid IP address or DNS name.')
