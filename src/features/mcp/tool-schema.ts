/**
 * The function-calling conversion of a collection (SPEC §4.13): its writable fields as a JSON
 * Schema object with their constraints. One function, two callers: `GET
 * /api/collections/{name}/tool-schema` answers it and the `create_<collection>` MCP tool uses its
 * `parameters` as `inputSchema`, so both follow every schema change.
 */
import type { Collection, Field } from '../../core/collections/model.js'
import { DEFAULT_TEXT_MAX } from '../../core/fields/text.js'
import {
  boolOption,
  maxSelectOption,
  nullableNumberOption,
  numberOption,
  stringListOption,
  stringOption,
} from '../../core/fields/options.js'
import { PASSWORD_MAX } from '../../core/fields/password.js'
import { vectorDimensions, vectorSourceField } from '../../core/fields/vector.js'

/** A JSON Schema (draft 2020-12 subset) as plain JSON. */
export type JsonSchema = Record<string, unknown>

/** A JSON Schema object with named properties, as tools take them. */
export interface ObjectSchema {
  type: 'object'
  properties: Record<string, JsonSchema>
  required: string[]
}

/** The name of the collection with an id (for relation fields), or undefined. */
export type CollectionNames = (id: string) => string | undefined

/** What `GET /api/collections/{name}/tool-schema` answers. */
export interface ToolSchema {
  name: string
  description: string
  parameters: ObjectSchema
}

/** Any JSON value, for `json` fields. */
const ANY_JSON = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']

/** A string, or a list of unique strings when the field holds several values. */
function listOf(field: Field, item: JsonSchema, min = 0): JsonSchema {
  const max = maxSelectOption(field)
  if (max <= 1) return item
  const schema: JsonSchema = { type: 'array', items: item, uniqueItems: true, maxItems: max }
  if (min > 0) schema.minItems = min
  return schema
}

function textSchema(field: Field): JsonSchema {
  const schema: JsonSchema = { type: 'string' }
  const min = numberOption(field, 'min', 0)
  if (min > 0) schema.minLength = min
  schema.maxLength = numberOption(field, 'max', 0) || DEFAULT_TEXT_MAX
  const pattern = stringOption(field, 'pattern')
  if (pattern !== '') schema.pattern = pattern
  return schema
}

function numberSchema(field: Field): JsonSchema {
  const onlyInt = boolOption(field, 'onlyInt') || boolOption(field, 'noDecimal')
  const schema: JsonSchema = { type: onlyInt ? 'integer' : 'number' }
  const min = nullableNumberOption(field, 'min')
  const max = nullableNumberOption(field, 'max')
  if (min !== null) schema.minimum = min
  if (max !== null) schema.maximum = max
  return schema
}

function domainsNote(field: Field): string | undefined {
  const only = stringListOption(field, 'onlyDomains')
  const except = stringListOption(field, 'exceptDomains')
  if (only.length > 0) return `Only these domains: ${only.join(', ')}.`
  if (except.length > 0) return `Not these domains: ${except.join(', ')}.`
  return undefined
}

function withNote(schema: JsonSchema, note: string | undefined): JsonSchema {
  return note === undefined ? schema : { ...schema, description: note }
}

function dateSchema(field: Field): JsonSchema {
  const min = stringOption(field, 'min')
  const max = stringOption(field, 'max')
  const bounds = [min && `not before ${min}`, max && `not after ${max}`].filter(Boolean)
  const note = `A date and time, e.g. 2024-01-31 12:00:00.000Z${bounds.length ? ` (${bounds.join(', ')})` : ''}.`
  return { type: 'string', format: 'date-time', description: note }
}

function passwordSchema(field: Field): JsonSchema {
  const schema: JsonSchema = { type: 'string', description: 'Write-only; never returned.' }
  const min = numberOption(field, 'min', 0)
  if (min > 0) schema.minLength = min
  schema.maxLength = Math.min(numberOption(field, 'max', 0) || PASSWORD_MAX, PASSWORD_MAX)
  const pattern = stringOption(field, 'pattern')
  if (pattern !== '') schema.pattern = pattern
  return schema
}

/** The JSON Schema of one field's value, or null for a field a tool cannot write. */
export function fieldSchema(field: Field, names: CollectionNames): JsonSchema | null {
  switch (field.type) {
    case 'text':
      return textSchema(field)
    case 'editor':
      return { type: 'string', description: 'Rich text (HTML).' }
    case 'number':
      return numberSchema(field)
    case 'bool':
      return withNote({ type: 'boolean' }, field.required ? 'Must be true.' : undefined)
    case 'email':
      return withNote({ type: 'string', format: 'email' }, domainsNote(field))
    case 'url':
      return withNote({ type: 'string', format: 'uri' }, domainsNote(field))
    case 'date':
      return dateSchema(field)
    case 'select':
      return listOf(field, { type: 'string', enum: stringListOption(field, 'values') })
    case 'relation': {
      const id = stringOption(field, 'collectionId')
      const target = names(id) ?? id
      return withNote(
        listOf(field, { type: 'string' }, numberOption(field, 'minSelect', 0)),
        `Record id${maxSelectOption(field) > 1 ? 's' : ''} of collection ${target}.`,
      )
    }
    case 'json':
      return { type: ANY_JSON, description: 'Any JSON value.' }
    case 'geoPoint':
      return {
        type: 'object',
        properties: {
          lon: { type: 'number', minimum: -180, maximum: 180 },
          lat: { type: 'number', minimum: -90, maximum: 90 },
        },
        required: ['lon', 'lat'],
      }
    case 'vector': {
      const n = vectorDimensions(field)
      const schema: JsonSchema = { type: 'array', items: { type: 'number' } }
      if (n > 0) Object.assign(schema, { minItems: n, maxItems: n })
      const source = vectorSourceField(field)
      return withNote(schema, source ? `Filled from ${source} when left out.` : undefined)
    }
    case 'password':
      return passwordSchema(field)
    default:
      // autodate (set by the server), file (no uploads through MCP) and unknown types.
      return null
  }
}

/** True when the server fills the field when it is left out, so it is never required. */
function serverFilled(field: Field): boolean {
  if (field.name === 'id') return true
  if (field.type === 'text' && stringOption(field, 'autogeneratePattern') !== '') return true
  return field.type === 'vector' && vectorSourceField(field) !== ''
}

/**
 * The writable fields of a collection as a JSON Schema object: every field but autodate and file
 * fields and hidden ones (only superusers may write those; password fields are hidden but written
 * by everyone, so they stay). Auth collections add `passwordConfirm` after the password. A
 * required field is in `required` unless the server fills it (`id`, autogenerated text, vectors
 * with a `sourceField`).
 */
export function recordSchema(collection: Collection, names: CollectionNames): ObjectSchema {
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const field of collection.fields) {
    if (field.hidden && field.type !== 'password') continue
    const schema = fieldSchema(field, names)
    if (!schema) continue
    properties[field.name] =
      field.name === 'id' ? { ...schema, description: 'Optional custom id.' } : schema
    const needed = field.required && !serverFilled(field)
    if (needed) required.push(field.name)
    if (collection.type === 'auth' && field.type === 'password' && field.name === 'password') {
      properties.passwordConfirm = { type: 'string', description: 'The password again.' }
      if (needed) required.push('passwordConfirm')
    }
  }
  return { type: 'object', properties, required }
}

/** The tool name of a record action on a collection (`create_posts`). */
export function toolName(verb: string, collection: Collection): string {
  return `${verb}_${collection.name}`
}

/** `GET /api/collections/{name}/tool-schema` and the `create_<collection>` tool's schema. */
export function toolSchema(collection: Collection, names: CollectionNames): ToolSchema {
  const files = collection.fields.some((f) => f.type === 'file')
  return {
    name: toolName('create', collection),
    description:
      `Create a record in the ${collection.name} collection (its createRule applies).` +
      (files ? ' File fields cannot be uploaded through this tool.' : ''),
    parameters: recordSchema(collection, names),
  }
}
