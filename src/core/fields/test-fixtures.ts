/** Test fixtures for the field types: fields, collections, a fake lookup and the case shapes. */
import { expect, it } from 'vitest'
import type { Collection, CollectionType, Field } from '../collections/model.js'
import type { FieldLookup, FieldType, ValidateContext } from './field-type.js'
import { getFieldType } from './registry.js'

export function typeOf(type: string): FieldType {
  const ft = getFieldType(type)
  if (!ft) throw new Error(`unknown field type ${type}`)
  return ft
}

export function makeField(
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

export function makeCollection(
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

export function fakeLookup(
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

export const users = makeCollection('users', 'auth')
export const stats = makeCollection('stats', 'view')
export const lookup = fakeLookup([makeCollection('own'), users, stats], {
  users: ['u1', 'u2', 'u3'],
  own: ['taken'],
})
export const createCtx: ValidateContext = { collection: makeCollection('own'), lookup, isNew: true }

export interface ValueCase {
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
  /** The expected params of the error, when the case checks them (`undefined`: none sent). */
  params?: Record<string, unknown>
  ctx?: Partial<ValidateContext>
}

export const long = (n: number, c = 'a'): string => c.repeat(n)

export interface OptionsCase {
  name: string
  type: string
  options: Record<string, unknown>
  /** Expected error code per option key; `{}` for valid options. */
  errors: Record<string, string>
}

/** One test per value case: normalise the raw value, validate it, compare value, code and message. */
export function itValueCases(cases: readonly ValueCase[]): void {
  it.each(cases)('$name', async (c) => {
    const ft = typeOf(c.type)
    const field = makeField(c.type, c.options, { required: c.required ?? false })
    const value = ft.normalize(c.raw, field)
    if ('value' in c) expect(value).toEqual(c.value)
    const err = await ft.validate(value, field, { ...createCtx, ...c.ctx })
    expect(err?.code ?? null).toBe(c.code)
    if (c.message !== undefined) expect(err?.message).toBe(c.message)
    if ('params' in c) expect(err?.params).toEqual(c.params)
  })
}

/** One test per options case: the codes `validateOptions` reports, keyed by option. */
export function itOptionsCases(cases: readonly OptionsCase[]): void {
  it.each(cases)('$name', (c) => {
    const errors = typeOf(c.type).validateOptions(makeField(c.type, c.options), lookup)
    const codes = Object.fromEntries(Object.entries(errors).map(([k, e]) => [k, e.code]))
    expect(codes).toEqual(c.errors)
  })
}
