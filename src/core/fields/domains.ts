/** The `onlyDomains`/`exceptDomains` options shared by email and url fields. */

import type { Field } from '../collections/model.js'
import { type FieldError, validationError } from '../errors.js'
import { toText } from './cast.js'
import type { FieldType } from './field-type.js'
import { mustBeBlank, required, wrongType } from './generic-errors.js'
import { checkStringList, collectErrors, stringListOption } from './options.js'

/** Options a new email or url field starts with. */
export function defaultDomainOptions(): Record<string, unknown> {
  return { exceptDomains: [], onlyDomains: [] }
}

const domainRe =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/i
const hostRe = /^(?:localhost|[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)(?::\d{1,5})?$/i

/** True for a syntactically valid domain name (`example.com`). */
export function isDomain(value: string): boolean {
  return domainRe.test(value)
}

function checkList(field: Field, key: string, other: string, withPort: boolean): FieldError | null {
  const typeErr = checkStringList(field, key)
  if (typeErr) return typeErr
  const list = stringListOption(field, key)
  if (list.length === 0) return null
  if (stringListOption(field, other).length > 0) return mustBeBlank()
  const bad = list.find((d) => !(withPort ? hostRe.test(d) : isDomain(d)))
  return bad === undefined ? null : validationError('validation_is_domain', { value: bad })
}

/**
 * Validates the two mutually exclusive domain lists; url fields may list `host:port` entries,
 * since they compare against the URL host including its port.
 */
export function validateDomainOptions(field: Field, withPort: boolean): Record<string, FieldError> {
  return collectErrors({
    exceptDomains: checkList(field, 'exceptDomains', 'onlyDomains', withPort),
    onlyDomains: checkList(field, 'onlyDomains', 'exceptDomains', withPort),
  })
}

/**
 * True when `domain` passes the field's `onlyDomains` (compared as written, as PocketBase does:
 * `a@EXAMPLE.com` is not in `example.com`) and `exceptDomains`. NB: PocketBase compares the
 * latter as written too, so `a@SPAM.com` passes `exceptDomains: ["spam.com"]`; we refuse it.
 */
export function domainAllowed(field: Field, domain: string): boolean {
  const only = stringListOption(field, 'onlyDomains')
  if (only.length > 0 && !only.includes(domain)) return false
  const except = stringListOption(field, 'exceptDomains').map((s) => s.toLowerCase())
  return !except.includes(domain.toLowerCase())
}

/** What distinguishes the two domain-restricted text types. */
export interface DomainTextSpec {
  type: string
  /** Whether domain options may carry a port (`host:port`). */
  withPort: boolean
  /** The domain of a valid value, or null when the value is malformed. */
  domainOf(value: string): string | null | Promise<string | null>
  invalid: FieldError
  notAllowed: FieldError
}

/**
 * A text field type whose value must be well-formed and whose domain may be restricted by
 * `onlyDomains` / `exceptDomains` (the `email` and `url` types).
 */
export function domainTextField(spec: DomainTextSpec): FieldType {
  return {
    type: spec.type,
    column: () => 'text',
    defaultOptions: defaultDomainOptions,
    validateOptions: (field) => validateDomainOptions(field, spec.withPort),
    isMulti: () => false,
    zero: () => '',
    normalize: (raw) => toText(raw),
    async validate(value, field) {
      if (typeof value !== 'string') return wrongType('a string', value)
      if (value === '') return field.required ? required() : null
      const domain = await spec.domainOf(value)
      if (domain === null) return spec.invalid
      return domainAllowed(field, domain) ? null : spec.notAllowed
    },
    toDb: (value) => toText(value),
    fromDb: (raw) => toText(raw),
  }
}
