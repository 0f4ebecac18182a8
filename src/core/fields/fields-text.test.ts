/** The text family of field types: text, email, url, editor and password (hashing included). */
import { compare } from 'bcryptjs'
import { describe, expect, it } from 'vitest'
import { verifyPassword } from './password.js'
import {
  long,
  makeField,
  typeOf,
  type OptionsCase,
  type ValueCase,
  itValueCases,
  itOptionsCases,
} from './test-fixtures.js'

// prettier-ignore
const valueCases: ValueCase[] = [
  // text
  { name: 'text empty ok', type: 'text', raw: undefined, value: '', code: null },
  { name: 'text required empty', type: 'text', required: true, raw: '', code: 'validation_required', message: 'Cannot be blank.' },
  { name: 'text number cast', type: 'text', raw: 12.5, value: '12.5', code: null },
  { name: 'text bool cast', type: 'text', raw: true, value: 'true', code: null },
  // As PocketBase (cast.ToString): an object or a list is no text at all.
  { name: 'text object is blank', type: 'text', raw: { a: 1 }, value: '', code: null },
  { name: 'text required object is blank', type: 'text', required: true, raw: { a: 1 }, value: '', code: 'validation_required' },
  { name: 'text required empty list is blank', type: 'text', required: true, raw: [], value: '', code: 'validation_required' },
  { name: 'text list is blank', type: 'text', raw: ['a', { b: 1 }], value: '', code: null },
  { name: 'text null clears', type: 'text', raw: null, value: '', code: null },
  { name: 'text repeated keys are blank', type: 'text', raw: ['a', 'b'], value: '', code: null },
  { name: 'text big number in plain notation', type: 'text', raw: 1e21, value: '1000000000000000000000', code: null },
  { name: 'text tiny number in plain notation', type: 'text', raw: 1e-7, value: '0.0000001', code: null },
  { name: 'text default max 5000', type: 'text', raw: long(5000), code: null },
  { name: 'text over default max', type: 'text', raw: long(5001), code: 'validation_max_text_constraint', message: 'Must be no more than 5000 character(s).' },
  { name: 'text max counts runes', type: 'text', options: { max: 3 }, raw: '😀😀😀', code: null },
  { name: 'text over max', type: 'text', options: { max: 3 }, raw: 'abcd', code: 'validation_max_text_constraint' },
  { name: 'text under min', type: 'text', options: { min: 3 }, raw: 'ab', code: 'validation_min_text_constraint', message: 'Must be at least 3 character(s).' },
  { name: 'text min skips empty', type: 'text', options: { min: 3 }, raw: '', code: null },
  { name: 'text pattern ok', type: 'text', options: { pattern: '^[a-z]+$' }, raw: 'abc', code: null },
  { name: 'text pattern fail', type: 'text', options: { pattern: '^[a-z]+$' }, raw: 'ab1', code: 'validation_invalid_format', message: 'Invalid value format.' },
  { name: 'text pattern go flags', type: 'text', options: { pattern: '(?i)^abc$' }, raw: 'ABC', code: null },
  { name: 'text pk change', type: 'text', options: { primaryKey: true }, raw: 'b', code: 'validation_pk_change', ctx: { isNew: false, original: 'a' } },
  { name: 'text pk unchanged', type: 'text', options: { primaryKey: true }, raw: 'a', code: null, ctx: { isNew: false, original: 'a' } },
  { name: 'text pk required', type: 'text', options: { primaryKey: true }, raw: '', code: 'validation_required' },
  { name: 'text pk forbidden char', type: 'text', options: { primaryKey: true }, raw: 'a/b', code: 'validation_forbidden_pk_character' },
  { name: 'text pk reserved', type: 'text', options: { primaryKey: true }, raw: 'com1', code: 'validation_reserved_pk' },
  { name: 'text pk exists', type: 'text', options: { primaryKey: true }, raw: 'taken', code: 'validation_pk_invalid' },
  { name: 'text pk free', type: 'text', options: { primaryKey: true }, raw: 'free', code: null },
  // email
  { name: 'email ok', type: 'email', raw: 'a.b@example.com', code: null },
  { name: 'email empty', type: 'email', raw: '', code: null },
  { name: 'email required', type: 'email', required: true, raw: '', code: 'validation_required' },
  { name: 'email invalid', type: 'email', raw: 'a@b', code: 'validation_is_email', message: 'Must be a valid email address.' },
  { name: 'email invalid 2', type: 'email', raw: 'not an email', code: 'validation_is_email' },
  { name: 'email underscore in domain', type: 'email', raw: 'f@users_abc.test', code: null },
  { name: 'email underscore in subdomain', type: 'email', raw: 'a_b@mail_1.users_abc.example.com', code: null },
  { name: 'email object is blank', type: 'email', required: true, raw: { a: 1 }, value: '', code: 'validation_required' },
  { name: 'email onlyDomains ok', type: 'email', options: { onlyDomains: ['example.com'] }, raw: 'a@example.com', code: null },
  { name: 'email onlyDomains compares case', type: 'email', options: { onlyDomains: ['example.com'] }, raw: 'a@Example.com', code: 'validation_email_domain_not_allowed' },
  { name: 'email exceptDomains ignores case', type: 'email', options: { exceptDomains: ['spam.io'] }, raw: 'a@SPAM.io', code: 'validation_email_domain_not_allowed' },
  { name: 'email onlyDomains fail', type: 'email', options: { onlyDomains: ['example.com'] }, raw: 'a@other.com', code: 'validation_email_domain_not_allowed', message: 'Email domain is not allowed.' },
  { name: 'email exceptDomains', type: 'email', options: { exceptDomains: ['spam.io'] }, raw: 'a@spam.io', code: 'validation_email_domain_not_allowed' },
  // url
  { name: 'url ok', type: 'url', raw: 'https://example.com/a?b=1', code: null },
  { name: 'url no scheme is a url (govalidator)', type: 'url', raw: 'example.com', code: null },
  { name: 'url upper-case scheme', type: 'url', raw: 'HTTP://EXAMPLE.COM', code: 'validation_invalid_url', message: 'Must be a valid url.' },
  { name: 'url no scheme has no host for onlyDomains', type: 'url', options: { onlyDomains: ['example.com'] }, raw: 'example.com', code: 'validation_url_domain_not_allowed' },
  { name: 'url garbage', type: 'url', raw: 'http://', code: 'validation_invalid_url' },
  { name: 'url required', type: 'url', required: true, raw: '', code: 'validation_required' },
  { name: 'url list of objects is blank', type: 'url', raw: [{ href: 'x' }], value: '', code: null },
  { name: 'url onlyDomains with port', type: 'url', options: { onlyDomains: ['localhost:8090'] }, raw: 'http://localhost:8090/x', code: null },
  { name: 'url onlyDomains port mismatch', type: 'url', options: { onlyDomains: ['localhost:8090'] }, raw: 'http://localhost/x', code: 'validation_url_domain_not_allowed', message: 'Url domain is not allowed.' },
  { name: 'url exceptDomains', type: 'url', options: { exceptDomains: ['bad.com'] }, raw: 'https://bad.com', code: 'validation_url_domain_not_allowed' },
  // editor
  { name: 'editor ok', type: 'editor', raw: '<p>hi</p>', code: null },
  { name: 'editor required', type: 'editor', required: true, raw: null, value: '', code: 'validation_required' },
  { name: 'editor object is blank', type: 'editor', required: true, raw: { html: '<p>' }, value: '', code: 'validation_required' },
  { name: 'editor maxSize in bytes', type: 'editor', options: { maxSize: 4 }, raw: 'ééé', code: 'validation_content_size_limit', message: 'The maximum allowed content size is 4 bytes.' },
  { name: 'editor default 5 MiB', type: 'editor', raw: long(5 * 1024 * 1024 + 1), code: 'validation_content_size_limit' },
  // password
  { name: 'password ok', type: 'password', raw: 'secret', code: null },
  { name: 'password required', type: 'password', required: true, raw: '', code: 'validation_required' },
  { name: 'password number cast', type: 'password', raw: 12345678, value: '12345678', code: null },
  { name: 'password object is blank', type: 'password', required: true, raw: { p: 1 }, value: '', code: 'validation_required' },
  { name: 'password min', type: 'password', options: { min: 8 }, raw: 'short', code: 'validation_min_text_constraint', message: 'Must be at least 8 character(s).' },
  { name: 'password min sends no params', type: 'password', options: { min: 8 }, raw: 'short', code: 'validation_min_text_constraint', params: undefined },
  { name: 'password max 71', type: 'password', raw: long(72), code: 'validation_max_text_constraint', message: 'Must be less than 71 character(s).' },
  { name: 'password pattern', type: 'password', options: { pattern: '\\d' }, raw: 'letters', code: 'validation_invalid_format' },
  { name: 'password unchanged hash on update', type: 'password', options: { min: 80 }, required: true, raw: '$2a$10$x', code: null, ctx: { isNew: false, original: '$2a$10$x' } },
]

describe('field values: normalize + validate', () => {
  itValueCases(valueCases)
})

// prettier-ignore
const optionsCases: OptionsCase[] = [
  { name: 'text defaults', type: 'text', options: {}, errors: {} },
  { name: 'text max below min', type: 'text', options: { min: 10, max: 5 }, errors: { max: 'validation_min_greater_equal_than_required' } },
  { name: 'text negative min', type: 'text', options: { min: -1 }, errors: { min: 'validation_min_greater_equal_than_required' } },
  { name: 'text bad pattern', type: 'text', options: { pattern: '([a-z' }, errors: { pattern: 'validation_invalid_regex' } },
  { name: 'text autogenerate ok', type: 'text', options: { autogeneratePattern: '[a-z0-9]{15}', min: 15, max: 15 }, errors: {} },
  { name: 'text autogenerate violates max', type: 'text', options: { autogeneratePattern: '[a-z]{10}', max: 5 }, errors: { autogeneratePattern: 'validation_invalid_autogenerate_pattern_value' } },
  { name: 'text autogenerate unsupported', type: 'text', options: { autogeneratePattern: '\\bx' }, errors: { autogeneratePattern: 'validation_invalid_autogenerate_pattern' } },
  { name: 'text autogenerate backreference (RE2 refuses it)', type: 'text', options: { autogeneratePattern: '(a)\\1' }, errors: { autogeneratePattern: 'validation_invalid_regex' } },
  { name: 'text pattern lookahead (RE2 refuses it)', type: 'text', options: { pattern: '^(?=a)a$' }, errors: { pattern: 'validation_invalid_regex' } },
  { name: 'email both lists', type: 'email', options: { onlyDomains: ['a.com'], exceptDomains: ['b.com'] }, errors: { onlyDomains: 'validation_empty', exceptDomains: 'validation_empty' } },
  { name: 'email bad domain', type: 'email', options: { onlyDomains: ['not a domain'] }, errors: { onlyDomains: 'validation_is_domain' } },
  { name: 'url host with port', type: 'url', options: { onlyDomains: ['localhost:8090'] }, errors: {} },
  { name: 'editor negative maxSize', type: 'editor', options: { maxSize: -1 }, errors: { maxSize: 'validation_min_greater_equal_than_required' } },
  { name: 'password min over 71', type: 'password', options: { min: 72 }, errors: { min: 'validation_max_less_equal_than_required' } },
  { name: 'password cost too low', type: 'password', options: { cost: 3 }, errors: { cost: 'validation_min_greater_equal_than_required' } },
  { name: 'password auth defaults', type: 'password', options: { min: 8, cost: 0 }, errors: {} },
]

describe('field options: validateOptions', () => {
  itOptionsCases(optionsCases)
})

describe('password', () => {
  it('hashes with bcrypt in prepare, at the default cost 10', async () => {
    const ft = typeOf('password')
    const field = makeField('password', { cost: 0 })
    const hashed = await ft.prepare?.('s3cret pass', field)
    expect(typeof hashed).toBe('string')
    expect(hashed).toMatch(/^\$2[aby]\$10\$/)
    expect(await compare('s3cret pass', hashed as string)).toBe(true)
    expect(await compare('other', hashed as string)).toBe(false)
    expect(await verifyPassword('s3cret pass', hashed as string)).toBe(true)
    expect(await verifyPassword('s3cret pass', '')).toBe(false)
    expect(ft.serialised).toBe(false)
  })

  it('uses the configured cost and leaves an empty password empty', async () => {
    const ft = typeOf('password')
    expect(await ft.prepare?.('x', makeField('password', { cost: 4 }))).toMatch(/^\$2[aby]\$04\$/)
    expect(await ft.prepare?.('', makeField('password'))).toBe('')
  })
})
