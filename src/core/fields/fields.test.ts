import { compare } from 'bcryptjs'
import { describe, expect, it } from 'vitest'
import type { Collection, CollectionType, Field } from '../collections/model.js'
import type { FieldLookup, FieldType, Modifier, ValidateContext } from './field-type.js'
import { autodateValue } from './autodate.js'
import { verifyPassword } from './password.js'
import { fieldTypes, getFieldType, listFieldTypes } from './registry.js'
import { validateRelationOptions } from './relation.js'
import { autogenerateText } from './text.js'

function typeOf(type: string): FieldType {
  const ft = getFieldType(type)
  if (!ft) throw new Error(`unknown field type ${type}`)
  return ft
}

function makeField(
  type: string,
  options: Record<string, unknown> = {},
  extra: Partial<Field> = {},
): Field {
  return {
    id: `${type}_1`,
    name: 'f',
    type,
    required: false,
    unique: false,
    system: false,
    hidden: false,
    presentable: false,
    options: { ...typeOf(type).defaultOptions(), ...options },
    ...extra,
  }
}

function makeCollection(
  id: string,
  type: CollectionType = 'base',
  fields: Field[] = [],
): Collection {
  return {
    id,
    name: `${id}_name`,
    type,
    system: false,
    fields,
    indexes: [],
    listRule: null,
    viewRule: null,
    createRule: null,
    updateRule: null,
    deleteRule: null,
    created: '',
    updated: '',
  }
}

function fakeLookup(
  collections: Collection[],
  records: Record<string, string[]> = {},
): FieldLookup & { calls: string[][] } {
  const calls: string[][] = []
  return {
    calls,
    findCollection: (idOrName) => collections.find((c) => c.id === idOrName || c.name === idOrName),
    missingIds(collection, ids) {
      calls.push([...ids])
      const have = new Set(records[collection.id] ?? [])
      return Promise.resolve(ids.filter((id) => !have.has(id)))
    },
  }
}

const users = makeCollection('users', 'auth')
const stats = makeCollection('stats', 'view')
const lookup = fakeLookup([makeCollection('own'), users, stats], {
  users: ['u1', 'u2', 'u3'],
  own: ['taken'],
})
const createCtx: ValidateContext = { collection: makeCollection('own'), lookup, isNew: true }

interface ValueCase {
  name: string
  type: string
  options?: Record<string, unknown>
  required?: boolean
  raw: unknown
  /** The expected normalised value, when the case checks it. */
  value?: unknown
  /** The expected error code, `null` for valid. */
  code: string | null
  message?: string
  ctx?: Partial<ValidateContext>
}

const long = (n: number, c = 'a'): string => c.repeat(n)

// prettier-ignore
const valueCases: ValueCase[] = [
  // text
  { name: 'text empty ok', type: 'text', raw: undefined, value: '', code: null },
  { name: 'text required empty', type: 'text', required: true, raw: '', code: 'validation_required', message: 'Cannot be blank.' },
  { name: 'text number cast', type: 'text', raw: 12.5, value: '12.5', code: null },
  { name: 'text bool cast', type: 'text', raw: true, value: 'true', code: null },
  { name: 'text object is a type error', type: 'text', raw: { a: 1 }, code: 'validation_unsupported_value_type', message: 'Must be a string, not an object.' },
  { name: 'text required object is no blank', type: 'text', required: true, raw: { a: 1 }, code: 'validation_unsupported_value_type' },
  { name: 'text empty list is a type error', type: 'text', required: true, raw: [], code: 'validation_unsupported_value_type', message: 'Must be a string, not an empty list.' },
  { name: 'text list ending with an object', type: 'text', raw: ['a', { b: 1 }], code: 'validation_unsupported_value_type', message: 'Must be a string, not a list.' },
  { name: 'text null clears', type: 'text', raw: null, value: '', code: null },
  { name: 'text repeated keys → last', type: 'text', raw: ['a', 'b'], value: 'b', code: null },
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
  // number
  { name: 'number zero ok', type: 'number', raw: 0, value: 0, code: null },
  { name: 'number required zero', type: 'number', required: true, raw: 0, code: 'validation_required' },
  { name: 'number required non-zero', type: 'number', required: true, raw: -1, code: null },
  { name: 'number numeric string', type: 'number', raw: ' 12.5 ', value: 12.5, code: null },
  { name: 'number junk text is a type error', type: 'number', raw: 'abc', code: 'validation_unsupported_value_type', message: 'Must be a number, not the text "abc".' },
  { name: 'number required junk is no blank', type: 'number', required: true, raw: 'abc', code: 'validation_unsupported_value_type' },
  { name: 'number object', type: 'number', raw: { n: 1 }, code: 'validation_unsupported_value_type', message: 'Must be a number, not an object.' },
  { name: 'number empty text → 0', type: 'number', raw: '', value: 0, code: null },
  { name: 'number repeated keys → last', type: 'number', raw: ['1', '2'], value: 2, code: null },
  { name: 'number bool → 1', type: 'number', raw: true, value: 1, code: null },
  { name: 'number null → 0', type: 'number', raw: null, value: 0, code: null },
  { name: 'number infinity', type: 'number', raw: 'Infinity', code: 'validation_not_a_number' },
  { name: 'number onlyInt', type: 'number', options: { onlyInt: true }, raw: 1.5, code: 'validation_only_int_constraint', message: 'Decimal numbers are not allowed.' },
  { name: 'number noDecimal alias', type: 'number', options: { noDecimal: true }, raw: 1.5, code: 'validation_only_int_constraint' },
  { name: 'number min', type: 'number', options: { min: 5 }, raw: 4, code: 'validation_min_number_constraint', message: 'Must be greater or equal than 5.' },
  { name: 'number zero skips min', type: 'number', options: { min: 5 }, raw: 0, code: null },
  { name: 'number max', type: 'number', options: { max: 5 }, raw: 5.5, code: 'validation_max_number_constraint', message: 'Must be less or equal than 5.' },
  { name: 'number in range', type: 'number', options: { min: -1, max: 5 }, raw: 5, code: null },
  // bool
  { name: 'bool "true"', type: 'bool', raw: 'true', value: true, code: null },
  { name: 'bool "t"', type: 'bool', raw: 't', value: true, code: null },
  { name: 'bool "1"', type: 'bool', raw: '1', value: true, code: null },
  { name: 'bool "on" (checkbox)', type: 'bool', raw: 'on', value: true, code: null },
  { name: 'bool 1', type: 'bool', raw: 1, value: true, code: null },
  { name: 'bool "false"', type: 'bool', raw: 'false', value: false, code: null },
  { name: 'bool junk text is a type error', type: 'bool', raw: 'nope', code: 'validation_unsupported_value_type', message: 'Must be a boolean, not the text "nope".' },
  { name: 'bool "off"', type: 'bool', raw: 'off', value: false, code: null },
  { name: 'bool "" is false', type: 'bool', raw: '', value: false, code: null },
  { name: 'bool 0', type: 'bool', raw: 0, value: false, code: null },
  { name: 'bool object', type: 'bool', required: true, raw: {}, code: 'validation_unsupported_value_type', message: 'Must be a boolean, not an object.' },
  { name: 'bool hidden+checkbox', type: 'bool', raw: [false, true], value: true, code: null },
  { name: 'bool required false', type: 'bool', required: true, raw: false, code: 'validation_required' },
  { name: 'bool required true', type: 'bool', required: true, raw: true, code: null },
  // email
  { name: 'email ok', type: 'email', raw: 'a.b@example.com', code: null },
  { name: 'email empty', type: 'email', raw: '', code: null },
  { name: 'email required', type: 'email', required: true, raw: '', code: 'validation_required' },
  { name: 'email invalid', type: 'email', raw: 'a@b', code: 'validation_is_email', message: 'Must be a valid email address.' },
  { name: 'email invalid 2', type: 'email', raw: 'not an email', code: 'validation_is_email' },
  { name: 'email underscore in domain', type: 'email', raw: 'f@users_abc.test', code: null },
  { name: 'email underscore in subdomain', type: 'email', raw: 'a_b@mail_1.users_abc.example.com', code: null },
  { name: 'email object', type: 'email', required: true, raw: { a: 1 }, code: 'validation_unsupported_value_type', message: 'Must be a string, not an object.' },
  { name: 'email onlyDomains ok', type: 'email', options: { onlyDomains: ['example.com'] }, raw: 'a@Example.com', code: null },
  { name: 'email onlyDomains fail', type: 'email', options: { onlyDomains: ['example.com'] }, raw: 'a@other.com', code: 'validation_email_domain_not_allowed', message: 'Email domain is not allowed.' },
  { name: 'email exceptDomains', type: 'email', options: { exceptDomains: ['spam.io'] }, raw: 'a@spam.io', code: 'validation_email_domain_not_allowed' },
  // url
  { name: 'url ok', type: 'url', raw: 'https://example.com/a?b=1', code: null },
  { name: 'url no scheme', type: 'url', raw: 'example.com', code: 'validation_invalid_url', message: 'Must be a valid url.' },
  { name: 'url garbage', type: 'url', raw: 'http://', code: 'validation_invalid_url' },
  { name: 'url required', type: 'url', required: true, raw: '', code: 'validation_required' },
  { name: 'url list of objects', type: 'url', raw: [{ href: 'x' }], code: 'validation_unsupported_value_type', message: 'Must be a string, not a list.' },
  { name: 'url onlyDomains with port', type: 'url', options: { onlyDomains: ['localhost:8090'] }, raw: 'http://localhost:8090/x', code: null },
  { name: 'url onlyDomains port mismatch', type: 'url', options: { onlyDomains: ['localhost:8090'] }, raw: 'http://localhost/x', code: 'validation_url_domain_not_allowed', message: 'Url domain is not allowed.' },
  { name: 'url exceptDomains', type: 'url', options: { exceptDomains: ['bad.com'] }, raw: 'https://bad.com', code: 'validation_url_domain_not_allowed' },
  // editor
  { name: 'editor ok', type: 'editor', raw: '<p>hi</p>', code: null },
  { name: 'editor required', type: 'editor', required: true, raw: null, value: '', code: 'validation_required' },
  { name: 'editor object', type: 'editor', required: true, raw: { html: '<p>' }, code: 'validation_unsupported_value_type' },
  { name: 'editor maxSize in bytes', type: 'editor', options: { maxSize: 4 }, raw: 'ééé', code: 'validation_content_size_limit', message: 'The maximum allowed content size is 4 bytes.' },
  { name: 'editor default 5 MiB', type: 'editor', raw: long(5 * 1024 * 1024 + 1), code: 'validation_content_size_limit' },
  // date
  { name: 'date canonical', type: 'date', raw: '2024-05-01 13:45:10.123Z', value: '2024-05-01 13:45:10.123Z', code: null },
  { name: 'date rfc3339 offset', type: 'date', raw: '2024-05-01T15:45:10+02:00', value: '2024-05-01 13:45:10.000Z', code: null },
  { name: 'date only', type: 'date', raw: '2024-05-01', value: '2024-05-01 00:00:00.000Z', code: null },
  { name: 'date unix', type: 'date', raw: 0, value: '1970-01-01 00:00:00.000Z', code: null },
  { name: 'date junk text', type: 'date', raw: 'yesterday', code: 'validation_date_invalid', message: 'Must be a valid date (such as 2024-01-31 12:00:00.000Z), not the text "yesterday".' },
  { name: 'date required junk is no blank', type: 'date', required: true, raw: 'nope', code: 'validation_date_invalid' },
  { name: 'date required empty', type: 'date', required: true, raw: '', value: '', code: 'validation_required' },
  { name: 'date blank text clears', type: 'date', raw: '  ', value: '', code: null },
  { name: 'date null clears', type: 'date', raw: null, value: '', code: null },
  { name: 'date impossible day', type: 'date', raw: '2024-02-31', code: 'validation_date_invalid' },
  { name: 'date boolean', type: 'date', raw: true, code: 'validation_date_invalid' },
  { name: 'date object', type: 'date', raw: { d: 1 }, code: 'validation_unsupported_value_type', message: 'Must be a date string, not an object.' },
  { name: 'date min', type: 'date', options: { min: '2024-01-01' }, raw: '2023-12-31', code: 'validation_min_greater_equal_than_required', message: 'Must be no less than 2024-01-01 00:00:00.000Z.' },
  { name: 'date max', type: 'date', options: { max: '2024-01-01' }, raw: '2024-01-02', code: 'validation_max_less_equal_than_required' },
  { name: 'date in range', type: 'date', options: { min: '2024-01-01', max: '2024-12-31' }, raw: '2024-06-01', code: null },
  // autodate
  { name: 'autodate accepts anything', type: 'autodate', required: true, raw: '', code: null },
  // select
  { name: 'select single', type: 'select', options: { values: ['a', 'b'] }, raw: 'a', value: 'a', code: null },
  { name: 'select single last wins', type: 'select', options: { values: ['a', 'b'] }, raw: ['a', 'b'], value: 'b', code: null },
  { name: 'select single json string', type: 'select', options: { values: ['a', 'b'] }, raw: '["b","a"]', value: 'a', code: null },
  { name: 'select single empty', type: 'select', options: { values: ['a'] }, raw: null, value: '', code: null },
  { name: 'select required', type: 'select', required: true, options: { values: ['a'] }, raw: [], code: 'validation_required' },
  { name: 'select invalid value lists the allowed ones', type: 'select', options: { values: ['a', 'b'] }, raw: 'c', code: 'validation_invalid_value', message: 'Invalid value "c"; allowed values: "a", "b".' },
  { name: 'select object is a type error', type: 'select', required: true, options: { values: ['a'] }, raw: { v: 'a' }, code: 'validation_unsupported_value_type', message: 'Must be a string, not an object.' },
  { name: 'select multi with an object', type: 'select', required: true, options: { values: ['a'], maxSelect: 2 }, raw: ['a', { v: 'a' }], code: 'validation_unsupported_value_type', message: 'Each value must be a string, not an object.' },
  { name: 'select multi json text with an object', type: 'select', options: { values: ['a'], maxSelect: 2 }, raw: '[{"v":"a"}]', code: 'validation_unsupported_value_type' },
  { name: 'select inferred number', type: 'select', options: { values: ['1', '2'] }, raw: 2, value: '2', code: null },
  { name: 'select multi unique non-empty', type: 'select', options: { values: ['a', 'b', 'c'], maxSelect: 3 }, raw: ['a', '', 'b', 'a'], value: ['a', 'b'], code: null },
  { name: 'select multi from string', type: 'select', options: { values: ['a', 'b'], maxSelect: 2 }, raw: 'a', value: ['a'], code: null },
  { name: 'select multi broken json', type: 'select', options: { values: ['a'], maxSelect: 2 }, raw: '[a', value: ['[a'], code: 'validation_invalid_value' },
  { name: 'select multi too many', type: 'select', options: { values: ['a', 'b', 'c'], maxSelect: 2 }, raw: ['a', 'b', 'c'], code: 'validation_too_many_values', message: 'Select no more than 2.' },
  { name: 'select multi invalid', type: 'select', options: { values: ['a', 'b'], maxSelect: 2 }, raw: '["a","x"]', code: 'validation_invalid_value' },
  // relation
  { name: 'relation ok', type: 'relation', options: { collectionId: 'users' }, raw: 'u1', value: 'u1', code: null },
  { name: 'relation missing record', type: 'relation', options: { collectionId: 'users' }, raw: 'zz', code: 'validation_missing_rel_records', message: 'Failed to find all relation records with the provided ids (missing: zz).' },
  { name: 'relation object', type: 'relation', required: true, options: { collectionId: 'users' }, raw: { id: 'u1' }, code: 'validation_unsupported_value_type', message: 'Must be a string, not an object.' },
  { name: 'relation multi ok', type: 'relation', options: { collectionId: 'users', maxSelect: 5 }, raw: ['u1', 'u2', 'u1'], value: ['u1', 'u2'], code: null },
  { name: 'relation multi one missing', type: 'relation', options: { collectionId: 'users', maxSelect: 5 }, raw: ['u1', 'nope'], code: 'validation_missing_rel_records' },
  { name: 'relation required', type: 'relation', required: true, options: { collectionId: 'users' }, raw: '', code: 'validation_required' },
  { name: 'relation empty ok', type: 'relation', options: { collectionId: 'users' }, raw: '', code: null },
  { name: 'relation minSelect', type: 'relation', options: { collectionId: 'users', minSelect: 2, maxSelect: 3 }, raw: ['u1'], code: 'validation_not_enough_values', message: 'Select at least 2.' },
  { name: 'relation maxSelect', type: 'relation', options: { collectionId: 'users', maxSelect: 2 }, raw: ['u1', 'u2', 'u3'], code: 'validation_too_many_values' },
  { name: 'relation missing collection', type: 'relation', options: { collectionId: 'gone' }, raw: 'u1', code: 'validation_missing_rel_collection' },
  // file
  { name: 'file single', type: 'file', raw: 'a_1.png', value: 'a_1.png', code: null },
  { name: 'file required', type: 'file', required: true, raw: [], value: '', code: 'validation_required' },
  { name: 'file multi', type: 'file', options: { maxSelect: 2 }, raw: ['a.png', 'b.png'], value: ['a.png', 'b.png'], code: null },
  { name: 'file too many', type: 'file', options: { maxSelect: 2 }, raw: ['a', 'b', 'c'], code: 'validation_too_many_files', message: 'The maximum allowed files is 2.' },
  { name: 'file object', type: 'file', required: true, raw: { name: 'a.png' }, code: 'validation_unsupported_value_type' },
  { name: 'file path traversal', type: 'file', raw: '../secret', code: 'validation_invalid_file', message: 'Invalid new files: ../secret.' },
  { name: 'file name too long', type: 'file', raw: long(151), code: 'validation_invalid_file' },
  // json
  { name: 'json object', type: 'json', raw: { a: [1, 2] }, value: { a: [1, 2] }, code: null },
  { name: 'json raw object string', type: 'json', raw: '{"a":1}', value: { a: 1 }, code: null },
  { name: 'json raw number string', type: 'json', raw: '-12.5', value: -12.5, code: null },
  { name: 'json quoted string', type: 'json', raw: '"hi"', value: 'hi', code: null },
  { name: 'json "null"', type: 'json', raw: 'null', value: null, code: null },
  { name: 'json "true"', type: 'json', raw: 'true', value: true, code: null },
  { name: 'json plain string', type: 'json', raw: 'hello', value: 'hello', code: null },
  { name: 'json broken json is a string', type: 'json', raw: '[1,', value: '[1,', code: null },
  { name: 'json required null', type: 'json', required: true, raw: null, code: 'validation_required' },
  { name: 'json required ""', type: 'json', required: true, raw: '', code: 'validation_required' },
  { name: 'json required []', type: 'json', required: true, raw: '[]', code: 'validation_required' },
  { name: 'json required {}', type: 'json', required: true, raw: {}, code: 'validation_required' },
  { name: 'json required false ok', type: 'json', required: true, raw: false, code: null },
  { name: 'json required 0 ok', type: 'json', required: true, raw: 0, code: null },
  { name: 'json size', type: 'json', options: { maxSize: 5 }, raw: [1, 2, 3], code: 'validation_json_size_limit', message: 'The maximum allowed JSON size is 5 bytes.' },
  { name: 'json NaN invalid', type: 'json', raw: [Number.NaN], code: 'validation_invalid_json' },
  // password
  { name: 'password ok', type: 'password', raw: 'secret', code: null },
  { name: 'password required', type: 'password', required: true, raw: '', code: 'validation_required' },
  { name: 'password number cast', type: 'password', raw: 12345678, value: '12345678', code: null },
  { name: 'password object', type: 'password', required: true, raw: { p: 1 }, code: 'validation_unsupported_value_type', message: 'Must be a string, not an object.' },
  { name: 'password min', type: 'password', options: { min: 8 }, raw: 'short', code: 'validation_min_text_constraint', message: 'Must be at least 8 character(s).' },
  { name: 'password max 71', type: 'password', raw: long(72), code: 'validation_max_text_constraint', message: 'Must be less than 71 character(s).' },
  { name: 'password pattern', type: 'password', options: { pattern: '\\d' }, raw: 'letters', code: 'validation_invalid_format' },
  { name: 'password unchanged hash on update', type: 'password', options: { min: 80 }, required: true, raw: '$2a$10$x', code: null, ctx: { isNew: false, original: '$2a$10$x' } },
  // geoPoint
  { name: 'geo object', type: 'geoPoint', raw: { lon: 23.5, lat: 42.1 }, value: { lon: 23.5, lat: 42.1 }, code: null },
  { name: 'geo json string', type: 'geoPoint', raw: '{"lon":1,"lat":2}', value: { lon: 1, lat: 2 }, code: null },
  { name: 'geo missing coord → 0', type: 'geoPoint', raw: { lat: 5 }, value: { lon: 0, lat: 5 }, code: null },
  { name: 'geo null → zero', type: 'geoPoint', raw: null, value: { lon: 0, lat: 0 }, code: null },
  { name: 'geo required zero', type: 'geoPoint', required: true, raw: { lon: 0, lat: 0 }, code: 'validation_required' },
  { name: 'geo required one non-zero', type: 'geoPoint', required: true, raw: { lon: 0, lat: 1 }, code: null },
  { name: 'geo bad lat', type: 'geoPoint', raw: { lon: 0, lat: 91 }, code: 'validation_invalid_latitude' },
  { name: 'geo bad lon', type: 'geoPoint', raw: { lon: -180.5, lat: 0 }, code: 'validation_invalid_longitude' },
  { name: 'geo junk', type: 'geoPoint', raw: 'here', code: 'validation_unsupported_value_type', message: 'Must be a point {"lon": number, "lat": number}, not the text "here".' },
  { name: 'geo junk coord', type: 'geoPoint', raw: { lon: 'x', lat: 1 }, code: 'validation_unsupported_value_type' },
  // vector
  { name: 'vector ok', type: 'vector', options: { dimensions: 3 }, raw: [0.1, -2, 3], value: [0.1, -2, 3], code: null },
  { name: 'vector json string', type: 'vector', options: { dimensions: 2 }, raw: '[1, 2]', value: [1, 2], code: null },
  { name: 'vector numeric strings', type: 'vector', options: { dimensions: 2 }, raw: ['1', '2.5'], value: [1, 2.5], code: null },
  { name: 'vector empty → null', type: 'vector', options: { dimensions: 2 }, raw: [], value: null, code: null },
  { name: 'vector required', type: 'vector', required: true, options: { dimensions: 2 }, raw: '', code: 'validation_required' },
  { name: 'vector wrong length', type: 'vector', options: { dimensions: 3 }, raw: [1, 2], code: 'validation_vector_dimensions', message: 'Must have exactly 3 numbers.' },
  { name: 'vector junk item', type: 'vector', options: { dimensions: 2 }, raw: [1, 'x'], code: 'validation_vector_invalid', message: 'Must be an array of finite numbers.' },
  { name: 'vector object', type: 'vector', options: { dimensions: 2 }, raw: { a: 1 }, code: 'validation_vector_invalid' },
]

describe('field values: normalize + validate', () => {
  it.each(valueCases)('$name', async (c) => {
    const ft = typeOf(c.type)
    const field = makeField(c.type, c.options, { required: c.required ?? false })
    const value = ft.normalize(c.raw, field)
    if ('value' in c) expect(value).toEqual(c.value)
    const err = await ft.validate(value, field, { ...createCtx, ...c.ctx })
    expect(err?.code ?? null).toBe(c.code)
    if (c.message !== undefined) expect(err?.message).toBe(c.message)
  })
})

interface OptionsCase {
  name: string
  type: string
  options: Record<string, unknown>
  /** Expected error code per option key; `{}` for valid options. */
  errors: Record<string, string>
}

// prettier-ignore
const optionsCases: OptionsCase[] = [
  { name: 'text defaults', type: 'text', options: {}, errors: {} },
  { name: 'text max below min', type: 'text', options: { min: 10, max: 5 }, errors: { max: 'validation_min_greater_equal_than_required' } },
  { name: 'text negative min', type: 'text', options: { min: -1 }, errors: { min: 'validation_min_greater_equal_than_required' } },
  { name: 'text bad pattern', type: 'text', options: { pattern: '([a-z' }, errors: { pattern: 'validation_invalid_regex' } },
  { name: 'text autogenerate ok', type: 'text', options: { autogeneratePattern: '[a-z0-9]{15}', min: 15, max: 15 }, errors: {} },
  { name: 'text autogenerate violates max', type: 'text', options: { autogeneratePattern: '[a-z]{10}', max: 5 }, errors: { autogeneratePattern: 'validation_invalid_autogenerate_pattern_value' } },
  { name: 'text autogenerate unsupported', type: 'text', options: { autogeneratePattern: '(a)\\1' }, errors: { autogeneratePattern: 'validation_invalid_autogenerate_pattern' } },
  { name: 'number max below min', type: 'number', options: { min: 5, max: 1 }, errors: { max: 'validation_min_greater_equal_than_required' } },
  { name: 'number onlyInt decimal bound', type: 'number', options: { onlyInt: true, min: 1.5 }, errors: { min: 'validation_only_int_constraint' } },
  { name: 'number wrong type', type: 'number', options: { min: '1' }, errors: { min: 'validation_unsupported_value_type' } },
  { name: 'email both lists', type: 'email', options: { onlyDomains: ['a.com'], exceptDomains: ['b.com'] }, errors: { onlyDomains: 'validation_empty', exceptDomains: 'validation_empty' } },
  { name: 'email bad domain', type: 'email', options: { onlyDomains: ['not a domain'] }, errors: { onlyDomains: 'validation_is_domain' } },
  { name: 'url host with port', type: 'url', options: { onlyDomains: ['localhost:8090'] }, errors: {} },
  { name: 'editor negative maxSize', type: 'editor', options: { maxSize: -1 }, errors: { maxSize: 'validation_min_greater_equal_than_required' } },
  { name: 'date invalid min', type: 'date', options: { min: 'soon' }, errors: { min: 'validation_date_invalid' } },
  { name: 'date max before min', type: 'date', options: { min: '2024-02-01', max: '2024-01-01' }, errors: { max: 'validation_date_out_of_range' } },
  { name: 'autodate neither', type: 'autodate', options: { onCreate: false, onUpdate: false }, errors: { onCreate: 'validation_required' } },
  { name: 'autodate update only', type: 'autodate', options: { onCreate: false, onUpdate: true }, errors: {} },
  { name: 'select no values', type: 'select', options: {}, errors: { values: 'validation_required' } },
  { name: 'select maxSelect > values', type: 'select', options: { values: ['a', 'b'], maxSelect: 3 }, errors: { maxSelect: 'validation_max_less_equal_than_required' } },
  { name: 'select ok', type: 'select', options: { values: ['a', 'b'], maxSelect: 2 }, errors: {} },
  { name: 'select non-string values', type: 'select', options: { values: [1, 2] }, errors: { values: 'validation_unsupported_value_type' } },
  { name: 'relation no collection', type: 'relation', options: {}, errors: { collectionId: 'validation_required' } },
  { name: 'relation unknown collection', type: 'relation', options: { collectionId: 'gone' }, errors: { collectionId: 'validation_field_invalid_relation' } },
  { name: 'relation by name is not an id', type: 'relation', options: { collectionId: 'users_name' }, errors: { collectionId: 'validation_field_invalid_relation' } },
  { name: 'relation to view', type: 'relation', options: { collectionId: 'stats' }, errors: { collectionId: 'validation_relation_field_non_view_base_collection' } },
  { name: 'relation minSelect without maxSelect', type: 'relation', options: { collectionId: 'users', minSelect: 2 }, errors: { maxSelect: 'validation_required' } },
  { name: 'relation maxSelect < minSelect', type: 'relation', options: { collectionId: 'users', minSelect: 3, maxSelect: 2 }, errors: { maxSelect: 'validation_min_greater_equal_than_required' } },
  { name: 'relation ok', type: 'relation', options: { collectionId: 'users', minSelect: 1, maxSelect: 3, cascadeDelete: true }, errors: {} },
  { name: 'file bad thumbs', type: 'file', options: { thumbs: ['100x100', '0x0'] }, errors: { thumbs: 'validation_invalid_thumb_format' } },
  { name: 'file thumbs ok', type: 'file', options: { thumbs: ['100x100t', '0x50', '50x0f'], mimeTypes: ['image/png', 'image/*'] }, errors: {} },
  { name: 'file bad mime', type: 'file', options: { mimeTypes: ['png'] }, errors: { mimeTypes: 'validation_invalid_mime_type' } },
  { name: 'json negative maxSize', type: 'json', options: { maxSize: -5 }, errors: { maxSize: 'validation_min_greater_equal_than_required' } },
  { name: 'password min over 71', type: 'password', options: { min: 72 }, errors: { min: 'validation_max_less_equal_than_required' } },
  { name: 'password cost too low', type: 'password', options: { cost: 3 }, errors: { cost: 'validation_min_greater_equal_than_required' } },
  { name: 'password auth defaults', type: 'password', options: { min: 8, cost: 0 }, errors: {} },
  { name: 'vector dimensions required', type: 'vector', options: {}, errors: { dimensions: 'validation_required' } },
  { name: 'vector dimensions too big', type: 'vector', options: { dimensions: 4097 }, errors: { dimensions: 'validation_max_less_equal_than_required' } },
  { name: 'vector dimensions decimal', type: 'vector', options: { dimensions: 1.5 }, errors: { dimensions: 'validation_unsupported_value_type' } },
  { name: 'vector ok', type: 'vector', options: { dimensions: 1536, sourceField: 'body' }, errors: {} },
  { name: 'vector bad sourceField', type: 'vector', options: { dimensions: 3, sourceField: 'a b' }, errors: { sourceField: 'validation_invalid_field_name' } },
  { name: 'geoPoint no options', type: 'geoPoint', options: {}, errors: {} },
]

describe('field options: validateOptions', () => {
  it.each(optionsCases)('$name', (c) => {
    const errors = typeOf(c.type).validateOptions(makeField(c.type, c.options), lookup)
    const codes = Object.fromEntries(Object.entries(errors).map(([k, e]) => [k, e.code]))
    expect(codes).toEqual(c.errors)
  })

  it('relation: a view may point at a view, a changed collectionId is rejected', () => {
    const field = makeField('relation', { collectionId: 'stats' })
    expect(validateRelationOptions(field, lookup, makeCollection('v2', 'view'))).toEqual({})
    const stored = makeCollection('posts', 'base', [
      makeField('relation', { collectionId: 'users' }),
    ])
    const changed = makeField('relation', { collectionId: 'posts' })
    const errs = validateRelationOptions(changed, fakeLookup([stored, users]), stored)
    expect(errs.collectionId?.code).toBe('validation_field_old_collection_id_change')
  })

  it('relation: a new collection may relate to itself', () => {
    const field = makeField('relation', { collectionId: 'fresh' })
    expect(validateRelationOptions(field, lookup, makeCollection('fresh'))).toEqual({})
  })
})

interface StorageCase {
  name: string
  type: string
  options?: Record<string, unknown>
  value: unknown
  column: string
  db: unknown
}

// prettier-ignore
const storageCases: StorageCase[] = [
  { name: 'text', type: 'text', value: 'héllo', column: 'text', db: 'héllo' },
  { name: 'email', type: 'email', value: 'a@b.co', column: 'text', db: 'a@b.co' },
  { name: 'url', type: 'url', value: 'https://x.io', column: 'text', db: 'https://x.io' },
  { name: 'editor', type: 'editor', value: '<b>x</b>', column: 'text', db: '<b>x</b>' },
  { name: 'date', type: 'date', value: '2024-05-01 13:45:10.123Z', column: 'text', db: '2024-05-01 13:45:10.123Z' },
  { name: 'autodate', type: 'autodate', value: '2024-05-01 13:45:10.123Z', column: 'text', db: '2024-05-01 13:45:10.123Z' },
  { name: 'password hash', type: 'password', value: '$2b$10$abc', column: 'text', db: '$2b$10$abc' },
  { name: 'number', type: 'number', value: -1.25, column: 'number', db: -1.25 },
  { name: 'bool', type: 'bool', value: true, column: 'bool', db: true },
  { name: 'json object', type: 'json', value: { a: [1, 'x'] }, column: 'json', db: '{"a":[1,"x"]}' },
  { name: 'json string', type: 'json', value: 'hi', column: 'json', db: '"hi"' },
  { name: 'json null', type: 'json', value: null, column: 'json', db: null },
  { name: 'geoPoint', type: 'geoPoint', value: { lon: 1.5, lat: -2 }, column: 'json', db: '{"lon":1.5,"lat":-2}' },
  { name: 'vector', type: 'vector', options: { dimensions: 2 }, value: [0.5, 1], column: 'json', db: '[0.5,1]' },
  { name: 'vector unset', type: 'vector', options: { dimensions: 2 }, value: null, column: 'json', db: null },
  { name: 'select single', type: 'select', options: { values: ['a'] }, value: 'a', column: 'text', db: 'a' },
  { name: 'select multi', type: 'select', options: { values: ['a', 'b'], maxSelect: 2 }, value: ['a', 'b'], column: 'json', db: '["a","b"]' },
  { name: 'select multi empty', type: 'select', options: { values: ['a', 'b'], maxSelect: 2 }, value: [], column: 'json', db: '[]' },
  { name: 'relation single', type: 'relation', options: { collectionId: 'users' }, value: 'u1', column: 'text', db: 'u1' },
  { name: 'relation multi', type: 'relation', options: { collectionId: 'users', maxSelect: 9 }, value: ['u1'], column: 'json', db: '["u1"]' },
  { name: 'file single', type: 'file', value: 'a.png', column: 'text', db: 'a.png' },
  { name: 'file multi', type: 'file', options: { maxSelect: 3 }, value: ['a.png', 'b.txt'], column: 'json', db: '["a.png","b.txt"]' },
]

describe('field storage: column, toDb, fromDb', () => {
  it.each(storageCases)('$name', (c) => {
    const ft = typeOf(c.type)
    const field = makeField(c.type, c.options)
    expect(ft.column(field)).toBe(c.column)
    expect(ft.toDb(c.value, field)).toEqual(c.db)
    expect(ft.fromDb(c.db, field)).toEqual(c.value)
  })

  // prettier-ignore
  const readCases: { name: string, type: string, options?: Record<string, unknown>, raw: unknown, value: unknown }[] = [
    { name: 'sqlite bool 1', type: 'bool', raw: 1, value: true },
    { name: 'sqlite bool 0', type: 'bool', raw: 0, value: false },
    { name: 'null text', type: 'text', raw: null, value: '' },
    { name: 'null number', type: 'number', raw: null, value: 0 },
    { name: 'bigint number', type: 'number', raw: 5n, value: 5 },
    { name: 'null json', type: 'json', raw: null, value: null },
    { name: 'decoded jsonb passes', type: 'json', raw: { a: 1 }, value: { a: 1 } },
    { name: 'null multi select', type: 'select', options: { values: ['a'], maxSelect: 2 }, raw: null, value: [] },
    { name: 'single stored, now multi', type: 'relation', options: { maxSelect: 3 }, raw: 'u1', value: ['u1'] },
    { name: 'multi stored, now single', type: 'relation', options: { maxSelect: 1 }, raw: '["u1","u2"]', value: 'u2' },
    { name: 'canonical multi list', type: 'relation', options: { maxSelect: 3 }, raw: '["u1","u2"]', value: ['u1', 'u2'] },
    { name: 'multi list with duplicates', type: 'relation', options: { maxSelect: 3 }, raw: '["u1","u1",""]', value: ['u1'] },
    { name: 'multi list of numbers', type: 'select', options: { values: ['1'], maxSelect: 3 }, raw: '[1,2]', value: ['1', '2'] },
    { name: 'empty stored, multi', type: 'relation', options: { maxSelect: 3 }, raw: '', value: [] },
    { name: 'plain single', type: 'relation', options: { maxSelect: 1 }, raw: 'u1', value: 'u1' },
    { name: 'null geoPoint', type: 'geoPoint', raw: null, value: { lon: 0, lat: 0 } },
    { name: 'null date', type: 'date', raw: null, value: '' },
  ]
  it.each(readCases)('reads $name', (c) => {
    expect(typeOf(c.type).fromDb(c.raw, makeField(c.type, c.options))).toEqual(c.value)
  })
})

describe('zero values and multi', () => {
  // prettier-ignore
  const zeroCases: { type: string, options?: Record<string, unknown>, zero: unknown, multi: boolean }[] = [
    { type: 'text', zero: '', multi: false },
    { type: 'number', zero: 0, multi: false },
    { type: 'bool', zero: false, multi: false },
    { type: 'json', zero: null, multi: false },
    { type: 'geoPoint', zero: { lon: 0, lat: 0 }, multi: false },
    { type: 'vector', zero: null, multi: false },
    { type: 'date', zero: '', multi: false },
    { type: 'select', options: { maxSelect: 1 }, zero: '', multi: false },
    { type: 'select', options: { maxSelect: 2 }, zero: [], multi: true },
    { type: 'relation', zero: '', multi: false },
    { type: 'file', options: { maxSelect: 99 }, zero: [], multi: true },
  ]
  it.each(zeroCases)('$type $options', (c) => {
    const field = makeField(c.type, c.options)
    expect(typeOf(c.type).zero(field)).toEqual(c.zero)
    expect(typeOf(c.type).isMulti(field)).toBe(c.multi)
  })
})

interface ModifierCase {
  name: string
  type: string
  options?: Record<string, unknown>
  current: unknown
  modifier: Modifier
  raw: unknown
  result: unknown
}

const multi = { values: ['a', 'b', 'c', 'd'], maxSelect: 4 }
// prettier-ignore
const modifierCases: ModifierCase[] = [
  { name: 'number add', type: 'number', current: 10, modifier: 'append', raw: 5, result: 15 },
  { name: 'number add numeric string', type: 'number', current: 10, modifier: 'append', raw: '2.5', result: 12.5 },
  { name: 'number subtract', type: 'number', current: 10, modifier: 'remove', raw: 3, result: 7 },
  { name: 'select append', type: 'select', options: multi, current: ['a'], modifier: 'append', raw: 'b', result: ['a', 'b'] },
  { name: 'select append list, deduped', type: 'select', options: multi, current: ['a'], modifier: 'append', raw: ['a', 'c'], result: ['a', 'c'] },
  { name: 'select prepend', type: 'select', options: multi, current: ['a'], modifier: 'prepend', raw: 'b', result: ['b', 'a'] },
  { name: 'select remove one', type: 'select', options: multi, current: ['a', 'b', 'c'], modifier: 'remove', raw: 'b', result: ['a', 'c'] },
  { name: 'select remove list', type: 'select', options: multi, current: ['a', 'b', 'c'], modifier: 'remove', raw: ['a', 'c'], result: ['b'] },
  { name: 'select remove json string', type: 'select', options: multi, current: ['a', 'b'], modifier: 'remove', raw: '["a"]', result: ['b'] },
  { name: 'single select append replaces', type: 'select', options: { values: ['a', 'b'] }, current: 'a', modifier: 'append', raw: 'b', result: 'b' },
  { name: 'single select prepend keeps current', type: 'select', options: { values: ['a', 'b'] }, current: 'a', modifier: 'prepend', raw: 'b', result: 'a' },
  { name: 'single select remove current', type: 'select', options: { values: ['a'] }, current: 'a', modifier: 'remove', raw: 'a', result: '' },
  { name: 'relation append', type: 'relation', options: { maxSelect: 5 }, current: [], modifier: 'append', raw: ['u1', 'u2'], result: ['u1', 'u2'] },
  { name: 'file remove', type: 'file', options: { maxSelect: 5 }, current: ['a.png', 'b.png'], modifier: 'remove', raw: 'a.png', result: ['b.png'] },
  // A value that is not of the field's type is kept as sent, for validation to report it.
  { name: 'number add junk text kept', type: 'number', current: 10, modifier: 'append', raw: 'abc', result: 'abc' },
  { name: 'select append an object kept', type: 'select', options: multi, current: ['a'], modifier: 'append', raw: [{ v: 'b' }], result: [{ v: 'b' }] },
]

describe('setter modifiers', () => {
  it.each(modifierCases)('$name', (c) => {
    const ft = typeOf(c.type)
    expect(typeof ft.applyModifier).toBe('function')
    expect(ft.applyModifier?.(c.current, c.modifier, c.raw, makeField(c.type, c.options))).toEqual(
      c.result,
    )
  })

  it('only number, select, relation and file have modifiers', () => {
    const withModifiers = [...fieldTypes.values()]
      .filter((t) => typeof t.applyModifier === 'function')
      .map((t) => t.type)
    expect(withModifiers.sort()).toEqual(['file', 'number', 'relation', 'select'])
  })
})

describe('relation lookups', () => {
  it('asks for all unique ids once', async () => {
    const l = fakeLookup([users], { users: ['u1', 'u2'] })
    const field = makeField('relation', { collectionId: 'users', maxSelect: 5 })
    const ft = typeOf('relation')
    const err = await ft.validate(ft.normalize(['u1', 'u2', 'u1', ''], field), field, {
      ...createCtx,
      lookup: l,
    })
    expect(err).toBeNull()
    expect(l.calls).toEqual([['u1', 'u2']])
  })
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

describe('autodate and autogenerate helpers', () => {
  const now = '2024-05-01 13:45:10.123Z'
  // prettier-ignore
  const cases: { onCreate: boolean, onUpdate: boolean, isNew: boolean, value: string | undefined }[] = [
    { onCreate: true, onUpdate: false, isNew: true, value: now },
    { onCreate: true, onUpdate: false, isNew: false, value: undefined },
    { onCreate: true, onUpdate: true, isNew: false, value: now },
    { onCreate: false, onUpdate: true, isNew: true, value: undefined },
  ]
  it.each(cases)('onCreate=$onCreate onUpdate=$onUpdate isNew=$isNew', (c) => {
    const field = makeField('autodate', { onCreate: c.onCreate, onUpdate: c.onUpdate })
    expect(autodateValue(field, c.isNew, now)).toBe(c.value)
  })

  it('generates text from the autogenerate pattern, after a prefix', () => {
    const field = makeField('text', { autogeneratePattern: '[a-z0-9]{15}' })
    expect(autogenerateText(field)).toMatch(/^[a-z0-9]{15}$/)
    expect(autogenerateText(field, 'post_')).toMatch(/^post_[a-z0-9]{15}$/)
    expect(autogenerateText(makeField('text'))).toBeUndefined()
  })
})

describe('registry', () => {
  it('lists every type once, by its type name', () => {
    expect(listFieldTypes().sort()).toEqual(
      [
        'autodate',
        'bool',
        'date',
        'editor',
        'email',
        'file',
        'geoPoint',
        'json',
        'number',
        'password',
        'relation',
        'select',
        'text',
        'url',
        'vector',
      ].sort(),
    )
    for (const name of listFieldTypes()) expect(getFieldType(name)?.type).toBe(name)
    expect(getFieldType('nope')).toBeUndefined()
  })

  it('accepts each type default options except where an option is required', () => {
    const needsInput = new Set(['select', 'relation', 'vector'])
    for (const ft of fieldTypes.values()) {
      const errors = ft.validateOptions(makeField(ft.type), lookup)
      expect(Object.keys(errors).length > 0, ft.type).toBe(needsInput.has(ft.type))
    }
  })
})

describe('date fast path', () => {
  it('keeps canonical dates as they are and still refuses impossible ones', async () => {
    const { toDateValue } = await import('./date.js')
    expect(toDateValue('2024-05-01 13:45:10.123Z')).toBe('2024-05-01 13:45:10.123Z')
    expect(toDateValue('2024-02-31 00:00:00.000Z')).toBe('')
    expect(toDateValue('2024-02-29 00:00:00.000Z')).toBe('2024-02-29 00:00:00.000Z')
    expect(toDateValue('2023-02-29 00:00:00.000Z')).toBe('')
    expect(toDateValue('1900-02-29 00:00:00.000Z')).toBe('')
    expect(toDateValue('2000-02-29 00:00:00.000Z')).toBe('2000-02-29 00:00:00.000Z')
    expect(toDateValue('2024-04-31 00:00:00.000Z')).toBe('')
    expect(toDateValue('2024-12-31 23:59:59.999Z')).toBe('2024-12-31 23:59:59.999Z')
  })
})
