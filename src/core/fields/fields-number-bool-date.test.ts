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
  // As PocketBase (Go's strconv.ParseFloat): what is not exactly a number is 0.
  { name: 'number numeric string', type: 'number', raw: '12.5', value: 12.5, code: null },
  { name: 'number padded string → 0', type: 'number', raw: ' 12.5 ', value: 0, code: null },
  { name: 'number junk text → 0', type: 'number', raw: 'abc', value: 0, code: null },
  { name: 'number "12abc" → 0', type: 'number', raw: '12abc', value: 0, code: null },
  { name: 'number hex without exponent → 0', type: 'number', raw: '0x10', value: 0, code: null },
  { name: 'number hex float', type: 'number', raw: '0x1p4', value: 16, code: null },
  { name: 'number underscores', type: 'number', raw: '1_000', value: 1000, code: null },
  { name: 'number out of range → 0', type: 'number', raw: '1e400', value: 0, code: null },
  { name: 'number required junk is blank', type: 'number', required: true, raw: 'abc', code: 'validation_required' },
  { name: 'number object → 0', type: 'number', raw: { n: 1 }, value: 0, code: null },
  { name: 'number empty text → 0', type: 'number', raw: '', value: 0, code: null },
  { name: 'number list → 0', type: 'number', raw: [5], value: 0, code: null },
  { name: 'number bool → 1', type: 'number', raw: true, value: 1, code: null },
  { name: 'number null → 0', type: 'number', raw: null, value: 0, code: null },
  { name: 'number infinity', type: 'number', raw: 'Infinity', code: 'validation_not_a_number' },
  { name: 'number nan', type: 'number', raw: 'nan', code: 'validation_not_a_number' },
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
  // As PocketBase (Go's strconv.ParseBool): "yes", "on" and other words are false.
  { name: 'bool "on" is false', type: 'bool', raw: 'on', value: false, code: null },
  { name: 'bool "yes" is false', type: 'bool', raw: 'yes', value: false, code: null },
  { name: 'bool "TRUE"', type: 'bool', raw: 'TRUE', value: true, code: null },
  { name: 'bool "tRue" is false', type: 'bool', raw: 'tRue', value: false, code: null },
  { name: 'bool 1', type: 'bool', raw: 1, value: true, code: null },
  { name: 'bool 2', type: 'bool', raw: 2, value: true, code: null },
  { name: 'bool "false"', type: 'bool', raw: 'false', value: false, code: null },
  { name: 'bool junk text is false', type: 'bool', raw: 'nope', value: false, code: null },
  { name: 'bool required "yes" is blank', type: 'bool', required: true, raw: 'yes', code: 'validation_required' },
  { name: 'bool "" is false', type: 'bool', raw: '', value: false, code: null },
  { name: 'bool 0', type: 'bool', raw: 0, value: false, code: null },
  { name: 'bool object is false', type: 'bool', required: true, raw: {}, value: false, code: 'validation_required' },
  { name: 'bool list is false', type: 'bool', raw: [false, true], value: false, code: null },
  { name: 'bool required false', type: 'bool', required: true, raw: false, code: 'validation_required' },
  { name: 'bool required true', type: 'bool', required: true, raw: true, code: null },
  // date
  { name: 'date canonical', type: 'date', raw: '2024-05-01 13:45:10.123Z', value: '2024-05-01 13:45:10.123Z', code: null },
  { name: 'date rfc3339 offset', type: 'date', raw: '2024-05-01T15:45:10+02:00', value: '2024-05-01 13:45:10.000Z', code: null },
  { name: 'date only', type: 'date', raw: '2024-05-01', value: '2024-05-01 00:00:00.000Z', code: null },
  // As PocketBase: Go's layouts (go-time.ts); anything else is no date.
  { name: 'date number is no date', type: 'date', raw: 1700000000, value: '', code: null },
  { name: 'date unix text is no date', type: 'date', raw: '1700000000', value: '', code: null },
  { name: 'date junk text is no date', type: 'date', raw: 'yesterday', value: '', code: null },
  { name: 'date required junk is blank', type: 'date', required: true, raw: 'nope', code: 'validation_required' },
  { name: 'date without seconds is no date', type: 'date', raw: '2024-01-02T03:04', value: '', code: null },
  { name: 'date year 1 is no date', type: 'date', raw: '0001-01-01 00:00:00.000Z', value: '', code: null },
  { name: 'date fraction truncated', type: 'date', raw: '2024-01-02 03:04:05.1239Z', value: '2024-01-02 03:04:05.123Z', code: null },
  { name: 'date rfc1123', type: 'date', raw: 'Tue, 02 Jan 2024 03:04:05 +0100', value: '2024-01-02 02:04:05.000Z', code: null },
  { name: 'date rfc822 two-digit year', type: 'date', raw: '02 Jan 24 03:04 UTC', value: '2024-01-02 03:04:00.000Z', code: null },
  { name: 'date ansic', type: 'date', raw: 'Tue Jan  2 03:04:05 2024', value: '2024-01-02 03:04:05.000Z', code: null },
  { name: 'date go String()', type: 'date', raw: '2024-01-02 03:04:05.5 -0700 MST', value: '2024-01-02 10:04:05.500Z', code: null },
  { name: 'date kitchen is year 0', type: 'date', raw: '3:04PM', value: '0000-01-01 15:04:00.000Z', code: null },
  { name: 'date padded is no date', type: 'date', raw: ' 2024-01-02', value: '', code: null },
  { name: 'date one-digit month is no date', type: 'date', raw: '2024-1-02', value: '', code: null },
  { name: 'date required empty', type: 'date', required: true, raw: '', value: '', code: 'validation_required' },
  { name: 'date blank text clears', type: 'date', raw: '  ', value: '', code: null },
  { name: 'date null clears', type: 'date', raw: null, value: '', code: null },
  { name: 'date impossible day is no date', type: 'date', raw: '2024-02-31', value: '', code: null },
  { name: 'date boolean is no date', type: 'date', raw: true, value: '', code: null },
  { name: 'date object is no date', type: 'date', raw: { d: 1 }, value: '', code: null },
  { name: 'date min as Go prints it', type: 'date', options: { min: '2024-01-01' }, raw: '2023-12-31', code: 'validation_min_greater_equal_than_required', message: 'Must be no less than 2024-01-01 00:00:00 +0000 UTC.', params: { threshold: '2024-01-01T00:00:00Z' } },
  { name: 'date max with milliseconds', type: 'date', options: { max: '2024-01-01 00:00:00.500Z' }, raw: '2024-01-02', code: 'validation_max_less_equal_than_required', message: 'Must be no greater than 2024-01-01 00:00:00.5 +0000 UTC.', params: { threshold: '2024-01-01T00:00:00.5Z' } },
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
  { name: 'number max below min', type: 'number', options: { min: 5, max: 1 }, errors: { max: 'validation_min_number_constraint' } },
  { name: 'number onlyInt decimal bound', type: 'number', options: { onlyInt: true, min: 1.5 }, errors: { min: 'validation_only_int_constraint' } },
  { name: 'number wrong type', type: 'number', options: { min: '1' }, errors: { min: 'validation_unsupported_value_type' } },
  { name: 'date invalid min', type: 'date', options: { min: 'soon' }, errors: { min: 'validation_date_invalid' } },
  { name: 'date max before min', type: 'date', options: { min: '2024-02-01', max: '2024-01-01' }, errors: { max: 'validation_date_out_of_range' } },
  { name: 'autodate neither', type: 'autodate', options: { onCreate: false, onUpdate: false }, errors: { onCreate: 'validation_required', onUpdate: 'validation_required' } },
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
