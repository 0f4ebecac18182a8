/**
 * Top-level messages of schema apply (`POST /api/schema/apply`, `svcbase schema apply|diff`,
 * `serve --automigrate`; src/core/collections/apply.ts).
 */
import type { Args, Entry } from './catalogue.js'

const payload = 'The schema payload'

/** Messages of schema apply. */
export const schemaMessages = {
  schemaPayloadInvalid: `${payload} must be an array of collections, {"collections": [...]} or {"items": [...]}.`,
  schemaPayloadNotArray: ({ key }: Args<'key'>) =>
    `${payload}'s "${key}" must be an array of collections.` as const,
  schemaPayloadAmbiguous: `${payload} has both "collections" and "items": send one of them.`,
  schemaPayloadEmpty: `${payload} lists no collections.`,
  schemaPayloadTooMany: ({ max }: Args<'max'>) =>
    `${payload} lists more than ${max} collections.` as const,
  schemaItemNotObject: ({ index }: Args<'index'>) =>
    `Item ${index} of the schema payload is not a collection object.` as const,
  schemaFlagInvalid: ({ name, value }: Args<'name' | 'value'>) =>
    `Invalid ${name}=${value}: expected 1, true, 0 or false.` as const,
  schemaApplyFailed: ({ name }: Args<'name'>) =>
    `Failed to apply the schema of collection "${name}".` as const,
  schemaApplyFailedDetail: ({ name, detail }: Args<'name' | 'detail'>) =>
    `Failed to apply the schema of collection "${name}": ${detail}` as const,
} as const satisfies Record<string, Entry>
