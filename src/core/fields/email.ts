/** The `email` field: an address, optionally restricted to `onlyDomains` or `exceptDomains`. */

import { fieldError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { required, unsupportedType } from './generic-errors.js'
import { toText } from './cast.js'
import { defaultDomainOptions, domainAllowed, validateDomainOptions } from './domains.js'

// ozzo's `is.EmailFormat`: a dot-atom local part and a dotted host name.
const emailRe =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/

/** True for a syntactically valid e-mail address of at most 254 characters. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && emailRe.test(value) && value.indexOf('@') <= 64
}

/** The `email` field type. */
export const emailField: FieldType = {
  type: 'email',
  column: () => 'text',
  defaultOptions: defaultDomainOptions,
  validateOptions: (field) => validateDomainOptions(field, false),
  isMulti: () => false,
  zero: () => '',
  normalize: (raw) => toText(raw),
  validate(value, field) {
    if (typeof value !== 'string') return Promise.resolve(unsupportedType())
    if (value === '') return Promise.resolve(field.required ? required() : null)
    if (!isEmail(value)) {
      return Promise.resolve(fieldError('validation_is_email', 'Must be a valid email address.'))
    }
    const domain = value.slice(value.lastIndexOf('@') + 1)
    if (!domainAllowed(field, domain)) {
      return Promise.resolve(
        fieldError('validation_email_domain_not_allowed', 'Email domain is not allowed.'),
      )
    }
    return Promise.resolve(null)
  },
  toDb: (value) => toText(value),
  fromDb: (raw) => toText(raw),
}
