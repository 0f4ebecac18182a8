/**
 * What every field type shares: storage (column, toDb, fromDb), zero values and multi, setter
 * modifiers, and the registry of types.
 */
import { describe, expect, it } from 'vitest'
import type { Modifier } from './field-type.js'
import { fieldTypes, getFieldType, listFieldTypes } from './registry.js'
import { lookup, makeField, typeOf } from './test-fixtures.js'

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
  { name: 'vector', type: 'vector', options: { dimensions: 2 }, value: [0.5, 1], column: 'blob', db: Buffer.from([0, 0, 0, 0x3f, 0, 0, 0x80, 0x3f]) },
  { name: 'vector unset', type: 'vector', options: { dimensions: 2 }, value: null, column: 'blob', db: null },
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
    { name: 'multi list of numbers', type: 'select', options: { values: ['1'], maxSelect: 3 }, raw: [1, 2], value: ['1', '2'] },
    // Go's json.Unmarshal into []string: a list item that is no string fails, the text is kept.
    { name: 'multi list text of numbers', type: 'select', options: { values: ['1'], maxSelect: 3 }, raw: '[1,2]', value: ['[1,2]'] },
    { name: 'empty stored, multi', type: 'relation', options: { maxSelect: 3 }, raw: '', value: [] },
    { name: 'plain single', type: 'relation', options: { maxSelect: 1 }, raw: 'u1', value: 'u1' },
    { name: 'null geoPoint', type: 'geoPoint', raw: null, value: { lon: 0, lat: 0 } },
    { name: 'null date', type: 'date', raw: null, value: '' },
    { name: 'vector stored as JSON text (older rows)', type: 'vector', options: { dimensions: 2 }, raw: '[0.5,1]', value: [0.5, 1] },
    { name: 'vector float32 rounding', type: 'vector', options: { dimensions: 1 }, raw: Buffer.from(new Float32Array([0.1]).buffer), value: [Math.fround(0.1)] },
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
  // As PocketBase: a value that is not of the field's type adds nothing.
  { name: 'number add junk text adds 0', type: 'number', current: 10, modifier: 'append', raw: 'abc', result: 10 },
  { name: 'number remove padded text subtracts 0', type: 'number', current: 10, modifier: 'remove', raw: ' 4 ', result: 10 },
  { name: 'number add [] adds 0', type: 'number', current: 10, modifier: 'append', raw: [], result: 10 },
  { name: 'select append an object adds nothing', type: 'select', options: multi, current: ['a'], modifier: 'append', raw: [{ v: 'b' }], result: ['a'] },
  { name: 'relation remove an object removes nothing', type: 'relation', options: multi, current: ['a', 'b'], modifier: 'remove', raw: { a: 1 }, result: ['a', 'b'] },
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
    // An autodate field must enable onCreate or onUpdate, as in PocketBase (both off by default).
    const needsInput = new Set(['select', 'relation', 'vector', 'autodate'])
    for (const ft of fieldTypes.values()) {
      const errors = ft.validateOptions(makeField(ft.type), lookup)
      expect(Object.keys(errors).length > 0, ft.type).toBe(needsInput.has(ft.type))
    }
  })
})
