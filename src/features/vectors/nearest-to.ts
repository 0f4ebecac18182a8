/** The `nearestTo` parameter of a records list: `<field>:<vector JSON | record id>`. */
import type { Collection, Field } from '../../core/collections/model.js'
import { badRequest, messages } from '../../core/errors.js'
import { FLOAT32_MAX } from '../../core/fields/vector.js'

/** The parsed `nearestTo` reference: a vector, or a record whose vector is ranked against. */
export type Target = { kind: 'vector'; text: string } | { kind: 'record'; id: string }

/** Splits `<field>:<vector | record id>` and finds the vector field. */
export function parseNearestTo(
  collection: Collection,
  value: string,
): { field: Field; target: Target } {
  const at = value.indexOf(':')
  if (at <= 0) throw badRequest(messages.nearestToMalformed)
  const name = value.slice(0, at).trim()
  const rest = value.slice(at + 1).trim()
  if (!/^\w+$/.test(name) || rest === '') throw badRequest(messages.nearestToMalformed)
  const field = collection.fields.find((f) => f.name === name)
  if (!field) throw badRequest(messages.nearestToUnknownField({ field: name }))
  if (field.type !== 'vector') throw badRequest(messages.nearestToNotVector({ field: name }))
  if (rest.startsWith('[')) return { field, target: { kind: 'vector', text: rest } }
  if (!/^[\w-]+$/.test(rest)) throw badRequest(messages.nearestToMalformed)
  return { field, target: { kind: 'record', id: rest } }
}

/** The numbers of a JSON vector; 400 for bad JSON, non-numbers or non-float32 magnitudes. */
export function parseVector(text: string): number[] {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (err) {
    throw badRequest(
      messages.nearestToBadJson({ reason: err instanceof Error ? err.message : String(err) }),
    )
  }
  if (
    !Array.isArray(v) ||
    v.length === 0 ||
    !v.every((x) => typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= FLOAT32_MAX)
  )
    throw badRequest(messages.nearestToNotNumbers)
  return v as number[]
}
