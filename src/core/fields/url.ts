/**
 * The `url` field: an absolute URL with a host, optionally restricted to `onlyDomains` or
 * `exceptDomains` (compared to the host including its port).
 */

import { fieldError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required, unsupportedType } from './generic-errors.js'
import { toText } from './cast.js'
import { defaultDomainOptions, domainAllowed, validateDomainOptions } from './domains.js'

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
export const urlField: FieldType = {
  type: 'url',
  column: () => 'text',
  defaultOptions: defaultDomainOptions,
  validateOptions: (field) => validateDomainOptions(field, true),
  isMulti: () => false,
  zero: () => '',
  normalize: (raw) => toText(raw),
  validate(value, field) {
    if (typeof value !== 'string') return Promise.resolve(unsupportedType())
    if (value === '') return Promise.resolve(field.required ? required() : null)
    const host = urlHost(value)
    if (host === null) {
      return Promise.resolve(fieldError('validation_invalid_url', 'Must be a valid url.'))
    }
    if (!domainAllowed(field, host)) {
      return Promise.resolve(
        fieldError('validation_url_domain_not_allowed', 'Url domain is not allowed.'),
      )
    }
    return Promise.resolve(null)
  },
  toDb: (value) => toText(value),
  fromDb: (raw) => toText(raw),
}
