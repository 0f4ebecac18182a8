/** Validation of a `POST /api/push/send` body. */

import { badRequest, hasErrors, validationError, type ValidationErrors } from '../../core/errors.js'
import type { PushMessage } from './backend.js'
import { MAX_PAYLOAD_BYTES, payloadBytes } from './service.js'
import { PLATFORMS, type Platform, type TargetFilter } from './subscriptions.js'
import { pushMessages } from './messages.js'

const MAX_TITLE = 255
const MAX_DATA_KEYS = 50
const MAX_REF = 255

/**
 * Reads `{title, body, data?, recordRef?, collectionRef?, platform?}`: `title` a non-empty string of at most 255
 * characters, `body` a string, `data` an object of string values (FCM and APNs carry strings),
 * `recordRef` a string, `collectionRef` an auth collection (id or name, through
 * `authCollectionId`), `platform` one of web, android, ios; the message as JSON at most
 * {@link MAX_PAYLOAD_BYTES} bytes. Throws 400 with field errors otherwise.
 */
export function readSendBody(
  body: Record<string, unknown>,
  authCollectionId: (idOrName: string) => string | undefined = () => undefined,
): {
  msg: PushMessage
  filter: TargetFilter
} {
  const errors: ValidationErrors = {}
  const { title, body: text, data, recordRef, collectionRef, platform } = body
  let collectionId: string | undefined
  if (title === undefined || title === null || title === '')
    errors.title = validationError('validation_required')
  else if (typeof title !== 'string')
    errors.title = validationError('validation_invalid_value:string')
  else if (title.length > MAX_TITLE)
    errors.title = validationError('validation_length_too_long', { max: MAX_TITLE })
  if (text === undefined || text === null) errors.body = validationError('validation_required')
  else if (typeof text !== 'string')
    errors.body = validationError('validation_invalid_value:string')
  let dataOut: Record<string, string> | undefined
  if (data !== undefined && data !== null) {
    if (typeof data !== 'object' || Array.isArray(data))
      errors.data = validationError('validation_invalid_value:object')
    else {
      const entries = Object.entries(data as Record<string, unknown>)
      const bad: ValidationErrors = {}
      for (const [k, v] of entries)
        if (typeof v !== 'string') bad[k] = validationError('validation_invalid_value:string')
      if (entries.length > MAX_DATA_KEYS)
        errors.data = validationError('validation_length_too_long', { max: MAX_DATA_KEYS })
      else if (hasErrors(bad)) errors.data = bad
      else dataOut = Object.fromEntries(entries) as Record<string, string>
    }
  }
  if (recordRef !== undefined && recordRef !== null && recordRef !== '') {
    if (typeof recordRef !== 'string')
      errors.recordRef = validationError('validation_invalid_value:string')
    else if (recordRef.length > MAX_REF)
      errors.recordRef = validationError('validation_length_too_long', { max: MAX_REF })
  }
  if (collectionRef !== undefined && collectionRef !== null && collectionRef !== '') {
    if (typeof collectionRef !== 'string')
      errors.collectionRef = validationError('validation_invalid_value:string')
    else if (!(collectionId = authCollectionId(collectionRef)))
      errors.collectionRef = validationError('validation_missing_collection')
  }
  if (platform !== undefined && platform !== null && platform !== '') {
    if (typeof platform !== 'string' || !(PLATFORMS as readonly string[]).includes(platform))
      errors.platform = validationError('validation_in_invalid')
  }
  if (!hasErrors(errors)) {
    const msg: PushMessage = { title: title as string, body: text as string }
    if (dataOut && Object.keys(dataOut).length > 0) msg.data = dataOut
    if (payloadBytes(msg) > MAX_PAYLOAD_BYTES)
      errors.body = validationError('validation_length_too_long', { max: MAX_PAYLOAD_BYTES })
    else {
      const filter: TargetFilter = {}
      if (typeof platform === 'string' && platform !== '') filter.platform = platform as Platform
      if (typeof recordRef === 'string' && recordRef !== '') filter.recordRefs = [recordRef]
      if (collectionId) filter.collectionRef = collectionId
      return { msg, filter }
    }
  }
  throw badRequest(pushMessages.pushSendFailed, errors)
}
