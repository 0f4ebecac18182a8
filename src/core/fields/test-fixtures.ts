/** Test fixtures for the field types: fields, collections, a fake lookup and the case shapes. */
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
