/** The `email` field: an address, optionally restricted to `onlyDomains` or `exceptDomains`. */

import { validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { domainTextField } from './domains.js'

// ozzo's `is.EmailFormat` (govalidator's `IsEmail`): a dot-atom local part and a dotted host
// whose labels may hold `-` and `_` inside (`f@users_abc.test`) and whose last label starts and
// ends with a letter; non-ASCII letters count as letters. NB: stricter than govalidator on two
// points that no mail server accepts: no quoted local part, and no `..` or `~` in the host.
const U = '\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF'
const ATOM = `[a-zA-Z0-9!#$%&'*+/=?^_\`{|}~${U}-]+`
const LABEL = `[a-zA-Z0-9${U}](?:[a-zA-Z0-9_${U}-]*[a-zA-Z0-9${U}])?`
const TLD = `[a-zA-Z${U}](?:[a-zA-Z0-9_${U}-]*[a-zA-Z${U}])?`
const emailRe = new RegExp(`^${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+${TLD}$`)

/**
 * True for a syntactically valid e-mail address of at most 254 characters (local part at most
 * 64). The one email check of the app: email fields, auth endpoints, settings, the CLI.
 */
export function isEmail(value: string): boolean {
  return value.length <= 254 && value.lastIndexOf('@') <= 64 && emailRe.test(value)
}

/** The `email` field type. */
export const emailField: FieldType = domainTextField({
  type: 'email',
  withPort: false,
  domainOf: (value) => (isEmail(value) ? value.slice(value.lastIndexOf('@') + 1) : null),
  invalid: validationError('validation_is_email'),
  notAllowed: validationError('validation_email_domain_not_allowed'),
})
