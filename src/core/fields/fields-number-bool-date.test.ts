/**
 * Number, bool, date and autodate fields, with the autodate and autogenerate helpers and the
 * date fast path.
 */
import { describe, expect, it } from 'vitest'
import { autodateValue } from './autodate.js'
import { autogenerateText } from './text.js'
import {
  makeField,
  type OptionsCase,
  type ValueCase,
  itValueCases,
  itOptionsCases,
} from './test-fixtures.js'

// prettier-ignore
const valueCases: ValueCase[] = [
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
]

describe('field values: normalize + validate', () => {
  itValueCases(valueCases)
})

// prettier-ignore
const optionsCases: OptionsCase[] = [
  { name: 'number max below min', type: 'number', options: { min: 5, max: 1 }, errors: { max: 'validation_min_greater_equal_than_required' } },
  { name: 'number onlyInt decimal bound', type: 'number', options: { onlyInt: true, min: 1.5 }, errors: { min: 'validation_only_int_constraint' } },
  { name: 'number wrong type', type: 'number', options: { min: '1' }, errors: { min: 'validation_unsupported_value_type' } },
  { name: 'date invalid min', type: 'date', options: { min: 'soon' }, errors: { min: 'validation_date_invalid' } },
  { name: 'date max before min', type: 'date', options: { min: '2024-02-01', max: '2024-01-01' }, errors: { max: 'validation_date_out_of_range' } },
  { name: 'autodate neither', type: 'autodate', options: { onCreate: false, onUpdate: false }, errors: { onCreate: 'validation_required' } },
  { name: 'autodate update only', type: 'autodate', options: { onCreate: false, onUpdate: true }, errors: {} },
]

describe('field options: validateOptions', () => {
  itOptionsCases(optionsCases)
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
