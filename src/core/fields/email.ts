/** The `email` field: an address, optionally restricted to `onlyDomains` or `exceptDomains`. */

import { fieldError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { domainTextField } from './domains.js'

// ozzo's `is.EmailFormat`: a dot-atom local part and a dotted host name.
const emailRe =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/

/** True for a syntactically valid e-mail address of at most 254 characters. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && emailRe.test(value) && value.indexOf('@') <= 64
}

/** The `email` field type. */
export const emailField: FieldType = domainTextField({
  type: 'email',
  withPort: false,
  domainOf: (value) => (isEmail(value) ? value.slice(value.lastIndexOf('@') + 1) : null),
  invalid: fieldError('validation_is_email', 'Must be a valid email address.'),
  notAllowed: fieldError('validation_email_domain_not_allowed', 'Email domain is not allowed.'),
})
