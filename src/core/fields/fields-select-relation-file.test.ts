/** The multi-valued field types: select, relation (options and lookups) and file. */
import { describe, expect, it } from 'vitest'
import { validateRelationOptions } from './relation.js'
import {
  createCtx,
  fakeLookup,
  long,
  lookup,
  makeCollection,
  makeField,
  typeOf,
  users,
  type OptionsCase,
  type ValueCase,
  itValueCases,
  itOptionsCases,
} from './test-fixtures.js'

// prettier-ignore
const valueCases: ValueCase[] = [
  // select
  { name: 'select single', type: 'select', options: { values: ['a', 'b'] }, raw: 'a', value: 'a', code: null },
  { name: 'select single last wins', type: 'select', options: { values: ['a', 'b'] }, raw: ['a', 'b'], value: 'b', code: null },
  { name: 'select single json string', type: 'select', options: { values: ['a', 'b'] }, raw: '["b","a"]', value: 'a', code: null },
  { name: 'select single empty', type: 'select', options: { values: ['a'] }, raw: null, value: '', code: null },
  { name: 'select required', type: 'select', required: true, options: { values: ['a'] }, raw: [], code: 'validation_required' },
  { name: 'select invalid value as PocketBase words it', type: 'select', options: { values: ['a', 'b'] }, raw: 'c', code: 'validation_invalid_value', message: 'Invalid value c.' },
  { name: 'select invalid padded value', type: 'select', options: { values: ['a', 'b'] }, raw: ' 12 ', code: 'validation_invalid_value', message: 'Invalid value  12.' },
  { name: 'select invalid blank value', type: 'select', options: { values: ['a', 'b'] }, raw: ' ', code: 'validation_invalid_value', message: 'Invalid value.' },
  { name: 'select object is blank', type: 'select', required: true, options: { values: ['a'] }, raw: { v: 'a' }, value: '', code: 'validation_required' },
  { name: 'select multi with an object is blank', type: 'select', required: true, options: { values: ['a'], maxSelect: 2 }, raw: ['a', { v: 'a' }], value: [], code: 'validation_required' },
  { name: 'select multi json text with an object', type: 'select', options: { values: ['a'], maxSelect: 2 }, raw: '[{"v":"a"}]', value: ['[{"v":"a"}]'], code: 'validation_invalid_value' },
  { name: 'select numbers and booleans print', type: 'select', options: { values: ['12', 'true', '1.5'], maxSelect: 3 }, raw: [12, true, 1.5, null], value: ['12', 'true', '1.5'], code: null },
  { name: 'select inferred number', type: 'select', options: { values: ['1', '2'] }, raw: 2, value: '2', code: null },
  { name: 'select multi unique non-empty', type: 'select', options: { values: ['a', 'b', 'c'], maxSelect: 3 }, raw: ['a', '', 'b', 'a'], value: ['a', 'b'], code: null },
  { name: 'select multi from string', type: 'select', options: { values: ['a', 'b'], maxSelect: 2 }, raw: 'a', value: ['a'], code: null },
  { name: 'select multi broken json', type: 'select', options: { values: ['a'], maxSelect: 2 }, raw: '[a', value: ['[a'], code: 'validation_invalid_value' },
  { name: 'select multi too many', type: 'select', options: { values: ['a', 'b', 'c'], maxSelect: 2 }, raw: ['a', 'b', 'c'], code: 'validation_too_many_values', message: 'Select no more than 2.' },
  { name: 'select multi invalid', type: 'select', options: { values: ['a', 'b'], maxSelect: 2 }, raw: '["a","x"]', code: 'validation_invalid_value' },
  // relation
  { name: 'relation ok', type: 'relation', options: { collectionId: 'users' }, raw: 'u1', value: 'u1', code: null },
  { name: 'relation missing record', type: 'relation', options: { collectionId: 'users' }, raw: 'zz', code: 'validation_missing_rel_records', message: 'Failed to find all relation records with the provided ids (missing: zz).' },
  { name: 'relation object is blank', type: 'relation', required: true, options: { collectionId: 'users' }, raw: { id: 'u1' }, value: '', code: 'validation_required' },
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
  { name: 'file object is blank', type: 'file', required: true, raw: { name: 'a.png' }, value: '', code: 'validation_required' },
  { name: 'file path traversal', type: 'file', raw: '../secret', code: 'validation_invalid_file', message: 'Invalid new files: ../secret.' },
  { name: 'file name too long', type: 'file', raw: long(151), code: 'validation_invalid_file' },
]

describe('field values: normalize + validate', () => {
  itValueCases(valueCases)
})

// prettier-ignore
const optionsCases: OptionsCase[] = [
  { name: 'select no values', type: 'select', options: {}, errors: { values: 'validation_required' } },
  { name: 'select maxSelect > values', type: 'select', options: { values: ['a', 'b'], maxSelect: 3 }, errors: { maxSelect: 'validation_max_less_equal_than_required' } },
  { name: 'select ok', type: 'select', options: { values: ['a', 'b'], maxSelect: 2 }, errors: {} },
  { name: 'select non-string values', type: 'select', options: { values: [1, 2] }, errors: { values: 'validation_unsupported_value_type' } },
  { name: 'relation no collection', type: 'relation', options: {}, errors: { collectionId: 'validation_required' } },
  { name: 'relation unknown collection', type: 'relation', options: { collectionId: 'gone' }, errors: { collectionId: 'validation_field_relation_missing_collection' } },
  { name: 'relation by name is not an id', type: 'relation', options: { collectionId: 'users_name' }, errors: { collectionId: 'validation_field_relation_missing_collection' } },
  { name: 'relation to view', type: 'relation', options: { collectionId: 'stats' }, errors: { collectionId: 'validation_relation_field_non_view_base_collection' } },
  { name: 'relation minSelect without maxSelect', type: 'relation', options: { collectionId: 'users', minSelect: 2 }, errors: { maxSelect: 'validation_required' } },
  { name: 'relation maxSelect < minSelect', type: 'relation', options: { collectionId: 'users', minSelect: 3, maxSelect: 2 }, errors: { maxSelect: 'validation_min_greater_equal_than_required' } },
  { name: 'relation ok', type: 'relation', options: { collectionId: 'users', minSelect: 1, maxSelect: 3, cascadeDelete: true }, errors: {} },
  { name: 'file thumbs ok', type: 'file', options: { thumbs: ['100x100t', '0x50', '50x0f'], mimeTypes: ['image/png', 'image/*'] }, errors: {} },
  { name: 'file bad mime', type: 'file', options: { mimeTypes: ['png'] }, errors: { mimeTypes: 'validation_invalid_mime_type' } },
]

describe('field options: validateOptions', () => {
  itOptionsCases(optionsCases)

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
