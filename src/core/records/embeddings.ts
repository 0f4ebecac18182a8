/**
 * Auto-embedding in the save pipeline: a `vector` field with a `sourceField` is filled from that
 * field's text through the `vectors` service, BEFORE the write transaction starts, so the writer is
 * never held while an embedding provider answers. Create: planned and applied at once. Update: the
 * plan is made from the record loaded outside the transaction and applied inside it; when the
 * source text changed in between, the update starts again (at most three times).
 */
import type { App } from '../app.js'
import type { Collection, Field } from '../collections/model.js'
import { messages, badRequest } from '../errors.js'
import { vectorSourceField } from '../fields/vector.js'
import type { RecordData } from '../request-info.js'
import { ErrorSet } from './error-set.js'
import { validateRecord } from './input.js'

/** The longest source text embedded, in characters (longer texts are cut). */
export const MAX_EMBEDDING_TEXT = 32_000

/** The fields an embedding plan fills: field name → the text embedded and its vector. */
export type EmbeddingPlan = Map<string, { text: string; vector: number[] | null }>

/** Thrown inside an update's transaction when the source text is not the one embedded. */
export class StaleEmbedding extends Error {
  constructor() {
    super('the source text changed while its embedding was computed')
    this.name = 'StaleEmbedding'
  }
}

/** The vector fields of a collection filled from another field. */
export function autoVectorFields(collection: Collection): Field[] {
  return collection.fields.filter((f) => {
    if (f.type !== 'vector') return false
    const source = vectorSourceField(f)
    return source !== '' && source !== f.name && collection.fields.some((s) => s.name === source)
  })
}

/** The text of a source value: strings as they are, lists joined by lines, others as JSON. */
export function sourceText(value: unknown): string {
  let text: string
  if (value === null || value === undefined) text = ''
  else if (typeof value === 'string') text = value
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value)
  else if (Array.isArray(value)) text = value.map((v) => sourceText(v)).join('\n')
  else text = JSON.stringify(value)
  return text.trim().slice(0, MAX_EMBEDDING_TEXT)
}

const supplied = (body: Record<string, unknown>, field: Field): boolean => {
  const v = body[field.name]
  return v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0)
}

/** Whether `field` must be (re)computed for `record`, given the stored `original` (update). */
function needs(
  field: Field,
  record: RecordData,
  original: RecordData | undefined,
  body: Record<string, unknown>,
): boolean {
  if (supplied(body, field)) return false // a vector sent with the body wins
  if (!original) return true
  const source = vectorSourceField(field)
  return sourceText(record[source]) !== sourceText(original[source]) || record[field.name] === null
}

/**
 * Computes the embeddings `record` needs (none when the vectors feature is off or no source
 * changed). The other fields are validated first, so a record that fails validation costs no
 * provider call; a provider failure throws its ApiError and nothing is written.
 */
export async function planEmbeddings(
  app: App,
  collection: Collection,
  record: RecordData,
  original: RecordData | undefined,
  body: Record<string, unknown>,
): Promise<EmbeddingPlan> {
  const plan: EmbeddingPlan = new Map()
  const fields = autoVectorFields(collection).filter((f) => needs(f, record, original, body))
  const service = app.services.find('vectors')
  if (fields.length === 0 || !service) return plan
  const pending: { field: Field; text: string }[] = []
  for (const field of fields) {
    const text = sourceText(record[vectorSourceField(field)])
    if (text === '') plan.set(field.name, { text, vector: null })
    else pending.push({ field, text })
  }
  if (pending.length === 0) return plan
  const skip = new Set(
    collection.fields
      .filter((f) => f.type === 'password' || f.type === 'file' || fields.includes(f))
      .map((f) => f.name),
  )
  new ErrorSet()
    .merge(
      await validateRecord(collection, record, {
        isNew: !original,
        original,
        lookup: app.collections.lookup(),
        skip,
      }),
    )
    .throwIf(original ? messages.recordUpdateFailed : messages.recordCreateFailed)
  for (const { field, text } of pending) {
    const [vector] = await service.embed(field, [text])
    // Rounded to float32 as stored, so the answer shows what a later read returns.
    plan.set(field.name, { text, vector: vector ? vector.map(Math.fround) : null })
  }
  return plan
}

/**
 * Puts the planned vectors into `record`. Throws {@link StaleEmbedding} when a field needs an
 * embedding of a text the plan did not compute (the source changed since the plan).
 */
export function applyEmbeddings(
  collection: Collection,
  record: RecordData,
  original: RecordData | undefined,
  body: Record<string, unknown>,
  plan: EmbeddingPlan,
  enabled: boolean,
): void {
  if (!enabled) return
  for (const field of autoVectorFields(collection)) {
    if (!needs(field, record, original, body)) continue
    const text = sourceText(record[vectorSourceField(field)])
    const planned = plan.get(field.name)
    if (text === '') record[field.name] = null
    else if (planned && planned.text === text) record[field.name] = planned.vector
    else throw new StaleEmbedding()
  }
}

/** The 400 of an update whose source text kept changing while it was embedded. */
export const sourceKeptChanging = () => badRequest(messages.embeddingSourceChanged)
