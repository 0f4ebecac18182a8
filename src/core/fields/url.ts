/**
 * The `url` field: an absolute URL with a host, optionally restricted to `onlyDomains` or
 * `exceptDomains` (compared to the host including its port).
 */

import { validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { domainTextField } from './domains.js'

/** The `host[:port]` of a valid absolute URL, or `null` when the value is not one. */
export function urlHost(value: string): string | null {
  if (/\s/.test(value) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return null
  try {
    const u = new URL(value)
    return u.host === '' ? null : u.host
  } catch {
    return null
  }
}

/** The `url` field type. */
export const urlField: FieldType = domainTextField({
  type: 'url',
  withPort: true,
  domainOf: urlHost,
  invalid: validationError('validation_invalid_url'),
  notAllowed: validationError('validation_url_domain_not_allowed'),
})
