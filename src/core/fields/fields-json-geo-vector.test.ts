/** The structured field types: json, geoPoint and vector. */
import vm from 'node:vm'
import { describe, expect, it } from 'vitest'
import { inspectJson } from './json.js'
import { type OptionsCase, type ValueCase, itValueCases, itOptionsCases } from './test-fixtures.js'

// prettier-ignore
const valueCases: ValueCase[] = [
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
  { name: 'json text naming a member twice is invalid', type: 'json', raw: '{"a":1,"b":{"a":2},"a":2}', code: 'validation_invalid_json' },
  { name: 'json text with a name once per object', type: 'json', raw: '{"a":{"a":1},"b":[{"a":1},{"a":"a:"}]}', value: { a: { a: 1 }, b: [{ a: 1 }, { a: 'a:' }] }, code: null },
  // geoPoint
  { name: 'geo object', type: 'geoPoint', raw: { lon: 23.5, lat: 42.1 }, value: { lon: 23.5, lat: 42.1 }, code: null },
  { name: 'geo json string', type: 'geoPoint', raw: '{"lon":1,"lat":2}', value: { lon: 1, lat: 2 }, code: null },
  { name: 'geo missing coord → 0', type: 'geoPoint', raw: { lat: 5 }, value: { lon: 0, lat: 5 }, code: null },
  { name: 'geo null → zero', type: 'geoPoint', raw: null, value: { lon: 0, lat: 0 }, code: null },
  { name: 'geo required zero', type: 'geoPoint', required: true, raw: { lon: 0, lat: 0 }, code: 'validation_required' },
  { name: 'geo required one non-zero', type: 'geoPoint', required: true, raw: { lon: 0, lat: 1 }, code: null },
  { name: 'geo bad lat', type: 'geoPoint', raw: { lon: 0, lat: 91 }, code: 'validation_invalid_latitude' },
  { name: 'geo bad lon', type: 'geoPoint', raw: { lon: -180.5, lat: 0 }, code: 'validation_invalid_longitude' },
  // As PocketBase: what does not decode as a point is the zero point.
  { name: 'geo junk is zero', type: 'geoPoint', raw: 'here', value: { lon: 0, lat: 0 }, code: null },
  { name: 'geo junk first coord stops', type: 'geoPoint', raw: { lon: 'x', lat: 1 }, value: { lon: 0, lat: 0 }, code: null },
  { name: 'geo text coords zero both', type: 'geoPoint', raw: { lon: '1', lat: '2' }, value: { lon: 0, lat: 0 }, code: null },
  { name: 'geo keys are exact', type: 'geoPoint', raw: { LON: 1, Lat: 2 }, value: { lon: 0, lat: 0 }, code: null },
  { name: 'geo null coord is 0', type: 'geoPoint', raw: { lon: 1, lat: null }, value: { lon: 1, lat: 0 }, code: null },
  { name: 'geo list is zero', type: 'geoPoint', raw: [1, 2], value: { lon: 0, lat: 0 }, code: null },
  { name: 'geo json text then junk', type: 'geoPoint', raw: ' {"lon":1,"lat":2}x', value: { lon: 1, lat: 2 }, code: null },
  { name: 'geo required junk is blank', type: 'geoPoint', required: true, raw: 12, code: 'validation_required' },
  // Go's streaming decoder: members in order, the first error ends it and what was read stays.
  { name: 'geo stops at a bad coordinate', type: 'geoPoint', raw: '{"lat":2,"lon":"1"}', value: { lon: 0, lat: 2 }, code: null },
  { name: 'geo stops at a repeated name', type: 'geoPoint', raw: '{"lon":1,"lon":3,"lat":2}', value: { lon: 1, lat: 0 }, code: null },
  { name: 'geo keeps what a cut text held', type: 'geoPoint', raw: '{"lon":1,"lat":2', value: { lon: 1, lat: 2 }, code: null },
  { name: 'geo skips other members', type: 'geoPoint', raw: '{"a":{"b":[1,"}"]},"lon":4}', value: { lon: 4, lat: 0 }, code: null },
  { name: 'geo object in its order', type: 'geoPoint', raw: { lon: 1, lat: true }, value: { lon: 1, lat: 0 }, code: null },
  { name: 'geo overflow is out of range', type: 'geoPoint', raw: '{"lon":1e400,"lat":2}', code: 'validation_invalid_longitude' },
  // vector
  { name: 'vector ok', type: 'vector', options: { dimensions: 3 }, raw: [0.1, -2, 3], value: [Math.fround(0.1), -2, 3], code: null },
  { name: 'vector json string', type: 'vector', options: { dimensions: 2 }, raw: '[1, 2]', value: [1, 2], code: null },
  { name: 'vector numeric strings', type: 'vector', options: { dimensions: 2 }, raw: ['1', '2.5'], value: [1, 2.5], code: null },
  { name: 'vector empty → null', type: 'vector', options: { dimensions: 2 }, raw: [], value: null, code: null },
  { name: 'vector required', type: 'vector', required: true, options: { dimensions: 2 }, raw: '', code: 'validation_required' },
  { name: 'vector wrong length', type: 'vector', options: { dimensions: 3 }, raw: [1, 2], code: 'validation_vector_dimensions', message: 'Must have exactly 3 numbers.' },
  { name: 'vector junk item', type: 'vector', options: { dimensions: 2 }, raw: [1, 'x'], code: 'validation_vector_invalid', message: 'Must be an array of finite numbers.' },
  { name: 'vector beyond float32', type: 'vector', options: { dimensions: 2 }, raw: [1e39, 0], code: 'validation_vector_invalid' },
  { name: 'vector object', type: 'vector', options: { dimensions: 2 }, raw: { a: 1 }, code: 'validation_vector_invalid' },
]

describe('field values: normalize + validate', () => {
  itValueCases(valueCases)
})

// prettier-ignore
const optionsCases: OptionsCase[] = [
  { name: 'json negative maxSize', type: 'json', options: { maxSize: -5 }, errors: { maxSize: 'validation_min_greater_equal_than_required' } },
  { name: 'vector dimensions required', type: 'vector', options: {}, errors: { dimensions: 'validation_required' } },
  { name: 'vector dimensions too big', type: 'vector', options: { dimensions: 4097 }, errors: { dimensions: 'validation_max_less_equal_than_required' } },
  { name: 'vector dimensions decimal', type: 'vector', options: { dimensions: 1.5 }, errors: { dimensions: 'validation_unsupported_value_type' } },
  { name: 'vector ok', type: 'vector', options: { dimensions: 1536, sourceField: 'body' }, errors: {} },
  { name: 'vector bad sourceField', type: 'vector', options: { dimensions: 3, sourceField: 'a b' }, errors: { sourceField: 'validation_invalid_field_name' } },
  { name: 'geoPoint no options', type: 'geoPoint', options: {}, errors: {} },
]

describe('field options: validateOptions', () => {
  itOptionsCases(optionsCases)
})

describe('json values made in another realm', () => {
  // A hook or migration script's `{…}` comes from its own `node:vm` context.
  const foreign = vm.runInNewContext('({ a: 1, nested: { b: [1, { c: null }] } })') as unknown
  it('a plain object of a script’s context is a JSON object', () => {
    expect(inspectJson(foreign)).toBe('ok')
    expect(inspectJson(Object.create(null))).toBe('ok')
  })
  it('an instance of a class, of either realm, is not', () => {
    expect(inspectJson(new Date())).toBe('invalid')
    expect(inspectJson(vm.runInNewContext('new Map()'))).toBe('invalid')
    expect(inspectJson({ a: vm.runInNewContext('new (class X {})()') })).toBe('invalid')
  })
})
